package org.jverity.remote.s3;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where the AWS CLI looks for settings: the environment variables and the home directory holding
 * {@code .aws/} ({@code $HOME}, as the CLI's {@code ~}). Injected, so that tests never read the
 * real ones; {@link #system()} for the process's own. Reads the files on every call: a refresh sees
 * what changed.
 *
 * @param variables the environment ({@code AWS_*})
 * @param home the directory {@code ~} stands for
 */
public record AwsEnvironment(Map<String, String> variables, Path home) {
  static final String DEFAULT_PROFILE = "default";

  public AwsEnvironment {
    variables = Map.copyOf(variables);
  }

  /** This process's environment and home ({@link #home}). */
  public static AwsEnvironment system() {
    Map<String, String> env = System.getenv();
    return new AwsEnvironment(env, home(env, System.getProperty("user.home")));
  }

  /**
   * The directory {@code ~} stands for, as botocore finds it (Python's {@code os.path.expanduser}):
   * {@code $HOME} when it is set, even in CI, a container or under {@code sudo -E}, where it
   * differs from the user's home in the password database; else {@code passwdHome} (the JDK's
   * {@code user.home}, which is that entry's). An empty {@code HOME} is the root directory, as
   * Python makes it.
   */
  static Path home(Map<String, String> env, String passwdHome) {
    String home = env.get("HOME");
    if (home == null) {
      return Path.of(passwdHome);
    }
    return Path.of(home.isEmpty() ? "/" : home);
  }

  /** A variable's value, or null when it is unset or blank (as the CLI treats it). */
  String get(String name) {
    String value = variables.get(name);
    return value == null || value.isBlank() ? null : value.strip();
  }

  /** {@code AWS_PROFILE}, or {@code default}. */
  String profileName() {
    String name = get("AWS_PROFILE");
    return name == null ? DEFAULT_PROFILE : name;
  }

  Path credentialsFile() {
    return file("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
  }

  Path configFile() {
    return file("AWS_CONFIG_FILE", ".aws/config");
  }

  /** The selected profile as both files have it (credentials file first, as the CLI reads it). */
  AwsProfile profile() throws IOException {
    String name = profileName();
    Path credentials = credentialsFile();
    Path config = configFile();
    Map<String, String> fromCredentials = AwsIniFile.read(credentials).get(name);
    Map<String, Map<String, String>> configSections = AwsIniFile.read(config);
    Map<String, String> fromConfig = configSections.get("profile " + name);
    if (fromConfig == null && name.equals(DEFAULT_PROFILE)) {
      fromConfig = configSections.get(DEFAULT_PROFILE);
    }
    if (fromCredentials == null && fromConfig == null && get("AWS_PROFILE") != null) {
      throw new IOException(
          "AWS profile " + name + " not found in " + credentials + " or " + config);
    }
    return new AwsProfile(
        name,
        fromCredentials == null ? Map.of() : fromCredentials,
        credentials,
        fromConfig == null ? Map.of() : fromConfig,
        config);
  }

  /**
   * The keys, as the CLI finds them: {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY}/{@code
   * AWS_SESSION_TOKEN}, then the profile in the credentials file, then in the config file; null
   * when there are none (requests go unsigned). Never asks instance metadata.
   *
   * @throws IOException when only half a key pair is set, or {@code AWS_PROFILE} names no profile
   */
  public AwsCredentials credentials() throws IOException {
    String id = get("AWS_ACCESS_KEY_ID");
    String secret = get("AWS_SECRET_ACCESS_KEY");
    if (id != null || secret != null) {
      return pair(id, secret, get("AWS_SESSION_TOKEN"), "environment");
    }
    AwsProfile profile = profile();
    AwsCredentials keys = profile.credentials(profile.fromCredentials(), profile.credentialsFile());
    if (keys == null) {
      keys = profile.credentials(profile.fromConfig(), profile.configFile());
    }
    return keys;
  }

  /** Both halves, or an error naming the missing one (the CLI's "partial credentials"). */
  static AwsCredentials pair(String id, String secret, String token, String source)
      throws IOException {
    if (id == null || secret == null) {
      throw new IOException(
          "partial AWS credentials in "
              + source
              + ": "
              + (id == null ? "access key id" : "secret access key")
              + " missing");
    }
    return new AwsCredentials(id, secret, token, source);
  }

  private Path file(String variable, String underHome) {
    String set = get(variable);
    if (set == null) {
      return home.resolve(underHome);
    }
    if (set.equals("~") || set.startsWith("~/")) {
      return home.resolve(set.substring(Math.min(2, set.length())));
    }
    return Path.of(set);
  }
}
