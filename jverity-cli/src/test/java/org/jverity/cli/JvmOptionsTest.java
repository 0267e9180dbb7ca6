package org.jverity.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  @Test
  void aTrainingEndedBySigtermEndsTheCommandAndLeavesNothing(@TempDir Path dir) throws Exception {
    // A stand-in for java that starts "training": writes half a cache and the JDK's configuration
    // file, says so, then waits to be stopped.
    Path fakeJava = dir.resolve("java");
    Files.writeString(
        fakeJava,
        String.join(
            "\n",
            "#!/bin/sh",
            "a=${1#-XX:AOTCacheOutput=}",
            "echo half > \"$a\"; echo conf > \"$a.config\"",
            "echo $$ > \"" + dir.resolve("java.pid") + "\"",
            "exec sleep 60",
            ""));
    Files.setPosixFilePermissions(fakeJava, PosixFilePermissions.fromString("rwx------"));
    Path scratch = Files.createDirectory(dir.resolve("tmp"));
    Path aot = dir.resolve("quick.aot");
    ProcessBuilder b =
        new ProcessBuilder(
                "bash",
                "-c",
                ". \"$0\" && jverity_train_aot \"$1\" x.jar \"$2\" quick; echo went on",
                LauncherScripts.projectRoot().resolve("bin/jvm-options.sh").toString(),
                fakeJava.toString(),
                aot.toString())
            .redirectErrorStream(true);
    b.environment().put("TMPDIR", scratch.toString());
    Process p = b.start();
    try {
      Path pid = dir.resolve("java.pid");
      for (int i = 0; !(Files.exists(pid) && Files.size(pid) > 0); i++) {
        assertThat(i).as("the stand-in started").isLessThan(1000);
        Thread.sleep(10);
      }
      assertThat(scratch.toFile().list()).as("the training's scratch directory").hasSize(1);
      // as a terminal's signal reaches the whole group: the shell and its child
      p.toHandle().destroy();
      ProcessHandle.of(Long.parseLong(Files.readString(pid).strip()))
          .ifPresent(ProcessHandle::destroy);
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isEqualTo(143);
      assertThat(new String(p.getInputStream().readAllBytes())).doesNotContain("went on");
      assertThat(scratch.toFile().list()).isEmpty();
      assertThat(aot).doesNotExist();
      assertThat(Path.of(aot + ".config")).doesNotExist();
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
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

  private static List<String> shell(String line, String... args) throws Exception {
    return LauncherScripts.run(line, args);
  }
}
