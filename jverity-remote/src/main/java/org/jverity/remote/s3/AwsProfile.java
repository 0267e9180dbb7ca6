package org.jverity.remote.s3;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * One named profile as the two AWS files have it.
 *
 * @param fromCredentials its section of the credentials file ({@code [name]}), or empty
 * @param fromConfig its section of the config file ({@code [profile name]}, {@code [default]}), or
 *     empty
 */
record AwsProfile(
    String name,
    Map<String, String> fromCredentials,
    Path credentialsFile,
    Map<String, String> fromConfig,
    Path configFile) {

  /** A setting of the config file ({@code region}, {@code s3.addressing_style}), or null. */
  String config(String key) {
    String value = fromConfig.get(key);
    return value == null || value.isEmpty() ? null : value;
  }

  /** The keys in one of the two sections, or null when it has none. */
  AwsCredentials credentials(Map<String, String> section, Path file) throws IOException {
    String id = section.get("aws_access_key_id");
    String secret = section.get("aws_secret_access_key");
    if (id == null && secret == null) {
      return null;
    }
    return AwsEnvironment.pair(
        id, secret, section.get("aws_session_token"), "profile " + name + " (" + file + ")");
  }
}
