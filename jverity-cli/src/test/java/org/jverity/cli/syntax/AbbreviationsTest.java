package org.jverity.cli.syntax;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Long options given as prefixes: refused by default, as popt (veritysetup) refuses them; taken
 * under {@link Syntax#abbreviations(List)} as getopt_long (fsverity) and argparse (avbtool) take
 * them. The command lines are fsverity digest's and avbtool's option names; the CLI tests run the
 * peers themselves on them.
 */
class AbbreviationsTest {
  /** What a parse stored, in order. */
  static final class Seen {
    final List<String> values = new ArrayList<>();
  }

  /** fsverity digest's options, with jverity's --s3-endpoint and --cache-dir beside them. */
  static Syntax<Seen> digest(boolean abbreviated) {
    Syntax<Seen> s =
        Syntax.command("digest", "d", Seen::new)
            .option("--hash-alg", "ALG", "", (t, v) -> t.values.add("hash-alg=" + v))
            .option("--block-size", "N", "", (t, v) -> t.values.add("block-size=" + v))
            .option("--salt", "HEX", "", (t, v) -> t.values.add("salt=" + v))
            .option("--out-merkle-tree", "F", "", (t, v) -> t.values.add("out-merkle-tree=" + v))
            .option("--out-descriptor", "F", "", (t, v) -> t.values.add("out-descriptor=" + v))
            .flag("--compact", "", t -> t.values.add("compact"))
            .option("--s3-endpoint", "URL", "", (t, v) -> t.values.add("s3-endpoint=" + v))
            .option("--cache-dir", "DIR", "", (t, v) -> t.values.add("cache-dir=" + v))
            .optionalParameter("FILE", "", (t, v) -> t.values.add("FILE " + v));
    return abbreviated ? s.abbreviations(List.of("--s3-endpoint", "--cache-dir")) : s;
  }

  /** The global options: --batch-mode and --help, which no prefix of the peer's picks. */
  static final Syntax<Seen> GLOBAL =
      Syntax.<Seen>group()
          .flag("--batch-mode", "", t -> t.values.add("batch-mode"))
          .flag("-v, --verbose", "", t -> t.values.add("verbose"))
          .flag("--help", "", t -> t.values.add("help"));

  static List<String> parse(Syntax<Seen> s, String... args) {
    Seen global = new Seen();
    Seen seen = s.parse(List.of(args), GLOBAL, global).target();
    List<String> all = new ArrayList<>(seen.values);
    global.values.forEach(v -> all.add("global " + v));
    return all;
  }

  @Test
  void withoutAbbreviationsAPrefixIsUnknownAsPoptHasIt() {
    // popt's longOptionStrcmp matches a name only of the same length: veritysetup --verb is refused
    assertThatThrownBy(() -> parse(digest(false), "--hash=sha512"))
        .isInstanceOf(UsageException.class)
        .hasMessage("unknown option '--hash'");
    assertThatThrownBy(() -> parse(digest(false), "--verb")).hasMessage("unknown option '--verb'");
    assertThat(digest(false).spelledOut(List.of("--hash=sha512"), GLOBAL))
        .containsExactly("--hash=sha512");
  }

  @Test
  void aPrefixOneOptionHasPicksIt() {
    // fsverity-utils' make check: fsverity digest FILE --hash=sha512 --block-size=512 --salt=...
    assertThat(parse(digest(true), "f", "--hash=sha512", "--block", "512", "--co"))
        .containsExactly("hash-alg=sha512", "block-size=512", "compact", "FILE f");
    assertThat(parse(digest(true), "--out-m=tree")).containsExactly("out-merkle-tree=tree");
  }

  @Test
  void anExactNameWinsOverTheOptionsItIsAPrefixOf() {
    Syntax<Seen> s =
        Syntax.command("info_image", "i", Seen::new)
            .option("--output", "F", "", (t, v) -> t.values.add("output=" + v))
            .option("--output_pubkey", "F", "", (t, v) -> t.values.add("output_pubkey=" + v))
            .abbreviations();
    assertThat(parse(s, "--output=a", "--output_p=b"))
        .containsExactly("output=a", "output_pubkey=b");
    assertThatThrownBy(() -> parse(s, "--outp=a"))
        .hasMessage("option '--outp' is ambiguous; possibilities: --output, --output_pubkey");
  }

  @Test
  void aPrefixSeveralOptionsShareIsRefusedNamingThem() {
    assertThatThrownBy(() -> parse(digest(true), "--out=x"))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "option '--out' is ambiguous; possibilities: --out-merkle-tree, --out-descriptor");
  }

  @Test
  void thePeersOptionsArePickedBeforeJveritysOwnAndTheGlobalOnes() {
    // fsverity takes --s for --salt and --b for --block-size: jverity's --s3-endpoint, --cache-dir
    // and --batch-mode do not make them ambiguous
    assertThat(parse(digest(true), "--s=1234", "--b=1024", "--c"))
        .containsExactly("salt=1234", "block-size=1024", "compact");
    // jverity's own are picked by a prefix none of the peer's has
    assertThat(parse(digest(true), "--s3=http://h", "--cache=d", "--ba", "--verb", "--he"))
        .containsExactly(
            "s3-endpoint=http://h",
            "cache-dir=d",
            "global batch-mode",
            "global verbose",
            "global help");
  }

  @Test
  void aFlagsPrefixTakesNoValue() {
    assertThatThrownBy(() -> parse(digest(true), "--comp=1"))
        .hasMessage("option '--compact' takes no value: '--comp=1'");
  }

  @Test
  void eitherSpellingOfAnAvbOptionIsOneOption() {
    Syntax<Seen> s =
        Syntax.command("add_hashtree_footer", "a", Seen::new)
            .option(
                "--partition-size, --partition_size",
                "N",
                "",
                (t, v) -> t.values.add("partition_size=" + v))
            .option(
                "--partition-name, --partition_name",
                "N",
                "",
                (t, v) -> t.values.add("partition_name=" + v))
            .abbreviations();
    assertThat(parse(s, "--partition_s=1", "--partition-s", "2", "--partition-n=x"))
        .containsExactly("partition_size=1", "partition_size=2", "partition_name=x");
    assertThatThrownBy(() -> parse(s, "--partition=1"))
        .hasMessage(
            "option '--partition' is ambiguous; possibilities: --partition_size,"
                + " --partition_name");
  }

  @Test
  void spelledOutNamesEachOptionInFullAndLeavesValuesAsTheyAre() {
    // --salt's value "--he" is a value, not --help; -- ends the options
    assertThat(
            digest(true)
                .spelledOut(
                    List.of("--hash=sha512", "--sal", "--he", "f", "--he", "-v", "--", "--co"),
                    GLOBAL))
        .containsExactly("--hash-alg=sha512", "--salt", "--he", "f", "--help", "-v", "--", "--co");
  }

  @Test
  void aCommandLineThatDoesNotParseIsSpeltAsItIs() {
    List<String> args = List.of("--he", "--out=x");
    assertThat(digest(true).spelledOut(args, GLOBAL)).isEqualTo(args);
  }

  @Test
  void configKeysAreNeverAbbreviated() {
    Seen seen = new Seen();
    assertThat(digest(true).setKey(seen, "hash", "sha512", null)).isFalse();
    assertThat(digest(true).setKey(seen, "hash-alg", "sha512", null)).isTrue();
    assertThat(seen.values).containsExactly("hash-alg=sha512");
  }

  @Test
  void onlyDeclaredOptionsCanBeJveritysOwn() {
    assertThatThrownBy(() -> digest(false).abbreviations(List.of("--threads")))
        .isInstanceOf(IllegalStateException.class);
  }
}
