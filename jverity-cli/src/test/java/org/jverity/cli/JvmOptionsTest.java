package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * bin/jvm-options.sh as the launchers use it: which AOT cache a command line starts from, and the
 * one-shot commands' collector and compiler. Each group it names is one {@link AotTraining} trains.
 */
class JvmOptionsTest {
  @Test
  void everyGroupTheLaunchersNameIsOneTheTrainingKnows() throws Exception {
    List<String> groups = Arrays.asList(shell("echo $JVERITY_AOT_GROUPS").getFirst().split(" "));
    assertThat(groups)
        .containsExactlyInAnyOrderElementsOf(
            Arrays.stream(AotTraining.Group.values())
                .map(g -> g.name().toLowerCase(Locale.ROOT))
                .toList());
  }

  @Test
  void aCommandLineStartsFromItsGroupsCache() throws Exception {
    assertThat(group("dump", "h")).isEqualTo("quick");
    assertThat(group("--help")).isEqualTo("quick");
    assertThat(group()).isEqualTo("quick");
    assertThat(group("digest", "--recursive", "d")).isEqualTo("quick");
    assertThat(group("--debug", "format", "d", "h")).isEqualTo("verity");
    assertThat(group("verify", "d", "h", "r")).isEqualTo("verity");
    assertThat(group("read", "https://example.org/d", "h", "r")).isEqualTo("remote");
    assertThat(group("verify", "d", "h", "r", "--fec-device=s3://b/k")).isEqualTo("remote");
    assertThat(group("avb", "info_image", "--image", "x")).isEqualTo("avb");
    assertThat(group("open", "http://h/d", "n", "h", "r")).isEqualTo("server");
    assertThat(group("serve", "c.ini")).isEqualTo("server");
    assertThat(group("demo")).isEqualTo("quick");
  }

  @Test
  void oneShotCommandsRunTheSerialCollectorAndTheQuickOnesC1Alone() throws Exception {
    assertThat(oneShot("dump", "h")).containsExactly("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    assertThat(oneShot("--help")).containsExactly("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    assertThat(oneShot("format", "d", "h")).containsExactly("-XX:+UseSerialGC");
    assertThat(oneShot("avb", "info_image")).containsExactly("-XX:+UseSerialGC");
    assertThat(oneShot("open", "d", "n")).as("a server: its own options").isEmpty();
    assertThat(oneShot("demo")).isEmpty();
    assertThat(
            shell(
                "JVERITY_JAVA_OPTS='-XX:+UseG1GC' jverity_oneshot_opts dump h && echo ${#JVERITY_ONESHOT_OPTS[@]}"))
        .as("the user's collector wins")
        .containsExactly("0");
  }

  @Test
  void avbRunsC1UnlessItComputesFec() throws Exception {
    assertThat(jit("avb", "info_image", "--image", "x")).containsExactly("-XX:TieredStopAtLevel=1");
    assertThat(jit("avb", "add_hashtree_footer", "--image", "x", "--do_not_generate_fec"))
        .containsExactly("-XX:TieredStopAtLevel=1");
    assertThat(jit("avb", "add_hashtree_footer", "--image", "x")).isEmpty();
    assertThat(jit("avb", "add_hashtree_footer", "--image", "x", "--fec_num_roots", "4")).isEmpty();
    assertThat(jit("format", "d", "h", "--fec-device", "f")).isEmpty();
  }

  private static String group(String... args) throws Exception {
    return shell("jverity_aot_group \"$@\" && echo $JVERITY_AOT_GROUP", args).getFirst();
  }

  private static List<String> oneShot(String... args) throws Exception {
    return shell(
        "jverity_oneshot_opts \"$@\" && printf '%s\\n' ${JVERITY_ONESHOT_OPTS[@]+\"${JVERITY_ONESHOT_OPTS[@]}\"}",
        args);
  }

  private static List<String> jit(String... args) throws Exception {
    return shell(
        "jverity_jit_opts \"$@\" && printf '%s\\n' ${JVERITY_JIT_OPTS[@]+\"${JVERITY_JIT_OPTS[@]}\"}",
        args);
  }

  /** Runs {@code line} in bash after sourcing bin/jvm-options.sh, with {@code args} as "$@". */
  private static List<String> shell(String line, String... args) throws Exception {
    Path options = projectRoot().resolve("bin/jvm-options.sh");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "bash", "-c", "unset JVERITY_JAVA_OPTS; . \"$0\" && " + line, options.toString()));
    cmd.addAll(List.of(args));
    ToolRun r = Clients.run(cmd.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.toString()).isZero();
    return r.stdout().lines().filter(l -> !l.isEmpty()).toList();
  }

  private static Path projectRoot() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("bin/jvm-options.sh"))) {
        return p;
      }
    }
    throw new IllegalStateException("no bin/jvm-options.sh above " + Path.of("").toAbsolutePath());
  }
}
