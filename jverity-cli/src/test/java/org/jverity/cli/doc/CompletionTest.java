package org.jverity.cli.doc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.jverity.testkit.Tool;
import org.jverity.testkit.ToolResult;

/**
 * The completion scripts driven as the shells drive them: bash's function called with COMP_WORDS
 * and COMP_CWORD set, zsh's with words and CURRENT and a compadd that prints what it is offered.
 */
class CompletionTest {
  @TempDir static Path dir;
  static Path bash;
  static Path zsh;

  @BeforeAll
  static void generate() throws IOException {
    GenerateDocs.write(dir.resolve("out"), "2026-01-01");
    bash = dir.resolve("out/completions/bash/jverity");
    zsh = dir.resolve("out/completions/zsh/_jverity");
    Files.createDirectories(dir.resolve("work"));
    Files.writeString(dir.resolve("work/system.img"), "x");
    Files.writeString(dir.resolve("work/system.key"), "x");
  }

  /** What bash offers for the words (the last one being completed). */
  private static List<String> bashIn(String runtimeDir, String... words) {
    StringBuilder array = new StringBuilder();
    for (String w : words) {
      array.append(" '").append(w).append("'");
    }
    String script =
        "source '"
            + bash
            + "'; COMP_WORDS=("
            + array
            + "); COMP_CWORD="
            + (words.length - 1)
            + "; __jverity; printf '%s\\n' \"${COMPREPLY[@]}\"";
    ToolResult r =
        Tool.of("bash")
            .in(dir.resolve("work"))
            .env("JVERITY_RUNTIME_DIR", runtimeDir)
            .run("-c", script);
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.stderr()).as(r.toString()).isEmpty();
    return r.out().lines().filter(l -> !l.isEmpty()).sorted().toList();
  }

  private static List<String> bash(String... words) {
    return bashIn(dir.resolve("none").toString(), words);
  }

  @Test
  void commandsSubcommandsAndOptionsComplete() {
    assertThat(bash("jverity", "av")).containsExactly("avb");
    assertThat(bash("jverity", "avb", "add_h"))
        .containsExactly("add_hash_footer", "add_hashtree_footer");
    assertThat(bash("jverity", "avb", "add_hashtree_footer", "--partition_"))
        .containsExactly("--partition_name", "--partition_size");
    assertThat(bash("jverity", "format", "--fec-r")).containsExactly("--fec-roots");
    assertThat(bash("jverity", "--verb")).contains("--verbose");
  }

  @Test
  void valuesCompleteAsTheirOptionTakesThem() {
    assertThat(bash("jverity", "open", "--io-class", ""))
        .containsExactly("best-effort", "idle", "none", "real-time");
    assertThat(bash("jverity", "open", "--io-class=be")).containsExactly("--io-class=best-effort");
    assertThat(bash("jverity", "avb", "add_hashtree_footer", "--image", "sys"))
        .containsExactly("system.img", "system.key");
    assertThat(bash("jverity", "format", "sys")).containsExactly("system.img", "system.key");
    // Hash names: veritysetup's for the dm-verity commands (each one the lookup takes),
    // fsverity's two for its commands, AVB's algorithms for avb's --algorithm.
    List<String> hashes = bash("jverity", "format", "--hash", "");
    assertThat(hashes).contains("sha256", "sha1", "sha3-256", "blake2b-512", "sm3", "stribog512");
    assertThat(hashes).allMatch(n -> org.jverity.hash.HashAlgorithm.lookup(n).isPresent());
    assertThat(bash("jverity", "verify", "-h", "blake2s-2"))
        .containsExactlyInAnyOrder("blake2s-256", "blake2s-224");
    assertThat(bash("jverity", "digest", "--hash-alg", "")).containsExactly("sha256", "sha512");
    assertThat(bash("jverity", "avb", "make_vbmeta_image", "--algorithm", "SHA512"))
        .containsExactly("SHA512_RSA2048", "SHA512_RSA4096", "SHA512_RSA8192");
    // Every avb subcommand's file options (image, key, output, helper, included image).
    assertThat(bash("jverity", "avb", "info_image", "--image", "sys"))
        .containsExactly("system.img", "system.key");
    assertThat(bash("jverity", "avb", "extract_public_key", "--key", "sys"))
        .containsExactly("system.img", "system.key");
    assertThat(
            bash("jverity", "avb", "make_vbmeta_image", "--include_descriptors_from_image", "sys"))
        .containsExactly("system.img", "system.key");
    assertThat(bash("jverity", "avb", "verify_image", "--key", "sys"))
        .containsExactly("system.img", "system.key");
    // A value that is no file is not completed with file names.
    assertThat(bash("jverity", "avb", "add_hashtree_footer", "--partition_name", "sys")).isEmpty();
  }

  @Test
  void statusCloseAndReloadCompleteTheExportsInTheRuntimeDirectory() throws IOException {
    Path run = Files.createDirectories(dir.resolve("run"));
    Files.createFile(run.resolve("system.ctl"));
    Files.createFile(run.resolve("vendor.ctl"));
    Files.createFile(run.resolve("lock"));
    assertThat(bashIn(run.toString(), "jverity", "status", "")).containsExactly("system", "vendor");
    assertThat(bashIn(run.toString(), "jverity", "close", "v")).containsExactly("vendor");
    Path other = Files.createDirectories(dir.resolve("other"));
    Files.createFile(other.resolve("data.ctl"));
    assertThat(bashIn(run.toString(), "jverity", "reload", "--runtime-dir", other.toString(), ""))
        .containsExactly("data");
  }

  /**
   * zsh's compadd matches what it is given against the word being completed (bash's compgen does
   * that in the bash function; zsh's emulation of compgen does not): the stand-in here does the
   * same, printing what would be offered.
   */
  private static List<String> zsh(String... words) {
    String script =
        "autoload -U compinit && compinit -u -D; fpath=('"
            + zsh.getParent()
            + "' $fpath); autoload -U _jverity;"
            + " compadd() { while [[ $1 != -- ]]; do shift; done; shift;"
            + " for a in \"$@\"; do [[ $a == ${W}* ]] && print -r -- $a; done; true };"
            + " words=("
            + String.join(" ", words)
            + "); CURRENT="
            + words.length
            + "; W="
            + words[words.length - 1]
            + "; _jverity";
    ToolResult r = Tool.of("zsh").in(dir.resolve("work")).run("-f", "-c", script);
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.stderr()).as(r.toString()).isEmpty();
    return r.out().lines().sorted().toList();
  }

  @Test
  void zshCompletesThroughTheSameFunctions() {
    assertThat(zsh("jverity", "avb", "add_h"))
        .containsExactly("add_hash_footer", "add_hashtree_footer");
    assertThat(zsh("jverity", "avb", "add_hashtree_footer", "--partition_"))
        .containsExactly("--partition_name", "--partition_size");
  }
}
