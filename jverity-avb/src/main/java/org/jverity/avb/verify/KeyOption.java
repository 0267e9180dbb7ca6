package org.jverity.avb.verify;

import java.util.Objects;

/**
 * How a front end lets its user give the trusted key, so that a refusal can say what to give: the
 * option (or config key) that takes the key, and the value of it that accepts an unsigned image.
 * The library names neither; the command line passes {@code --avb-key} and {@code none}.
 *
 * @param name the option or key, as the user spells it: {@code --avb-key}
 * @param unsignedValue the value of it that accepts an unsigned vbmeta: {@code none}
 */
public record KeyOption(String name, String unsignedValue) {
  public KeyOption {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(unsignedValue, "unsignedValue");
  }
}
