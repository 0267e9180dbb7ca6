package org.jverity.nbd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which requests are refused, with which error and message; EOVERFLOW only under DF. */
class RequestValidationTest {
  private static final int BS = 4096;
  private static final Export EXPORT =
      Export.of("", new MemorySource(new byte[16 * BS], BS, Set.of()));
  private static final int MAX = ServerLimits.DEFAULTS.maxRequestLength();

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
      a read inside the export                 | 0 | 0 | 0     | 4096  | true  | true  | -
      a read of the whole export               | 0 | 4 | 0     | 65536 | true  | true  | -
      flush without a range                    | 3 | 0 | 0     | 0     | false | false | -
      cache inside the export                  | 5 | 0 | 1     | 10    | false | false | -
      block status with base:allocation        | 7 | 8 | 0     | 10    | true  | true  | -
      an unknown command                       | 9 | 0 | 0     | 1     | true  | true  | EINVAL unknown command 9
      a flag the command does not take         | 3 | 1 | 0     | 0     | true  | true  | EINVAL command flags 0x1 are not valid for flush
      DF without structured replies            | 0 | 4 | 0     | 1     | false | false | EINVAL command flags 0x4 are not valid for read
      flush with a range                       | 3 | 0 | 0     | 1     | true  | true  | EINVAL flush takes no range
      trim                                     | 4 | 0 | 0     | 1     | true  | true  | EPERM the export is read-only
      write zeroes                             | 6 | 0 | 0     | 1     | true  | true  | EPERM the export is read-only
      a zero-length read                       | 0 | 0 | 0     | 0     | true  | true  | EINVAL zero-length read
      a cache past the end                     | 5 | 0 | 65530 | 7     | true  | true  | EINVAL cache of 7 bytes at 65530 is outside the export (65536 bytes)
      a negative offset                        | 0 | 0 | -1    | 1     | true  | true  | EINVAL read of 1 bytes at -1 is outside the export (65536 bytes)
      block status without base:allocation     | 7 | 0 | 0     | 1     | true  | false | EINVAL block status without base:allocation selected
      """)
  void validate(
      String what,
      int type,
      int flags,
      long offset,
      long length,
      boolean structured,
      boolean blockStatus,
      String refused) {
    Session s = new Session(null, EXPORT, structured, blockStatus, 0);

    Refusal r =
        RequestValidation.validate(
            new RequestHeader(flags, type, 1, offset, length), s, ServerLimits.DEFAULTS);

    assertThat(r == null ? "-" : r.error() + " " + r.message()).as(what).isEqualTo(refused);
  }

  @ParameterizedTest(name = "DF {0}: {1}")
  @CsvSource({"true, EOVERFLOW", "false, EINVAL"})
  void aReadTooLongIsAnOverflowOnlyUnderDf(boolean df, NbdError error) {
    Export big = Export.of("", new MemorySource(new byte[MAX + BS], BS, Set.of()));
    Session s = new Session(null, big, true, true, 0);

    Refusal r =
        RequestValidation.validate(
            new RequestHeader(df ? Nbd.CMD_FLAG_DF : 0, 0, 1, 0, MAX + 1L),
            s,
            ServerLimits.DEFAULTS);

    assertThat(r)
        .isEqualTo(
            new Refusal(error, "read of " + (MAX + 1L) + " bytes (expected: at most " + MAX + ")"));
  }
}
