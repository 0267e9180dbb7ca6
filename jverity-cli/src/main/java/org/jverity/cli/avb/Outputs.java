package org.jverity.cli.avb;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.jverity.avb.SparseImage;
import org.jverity.cli.command.Checks;
import org.jverity.cli.command.CliException;
import org.jverity.cli.command.DistinctFiles;
import org.jverity.cli.command.ExitCode;
import org.jverity.format.VerityParameterException;
import org.jverity.io.FileDevice;

/** The checks every avb subcommand makes of its files before it changes anything. */
final class Outputs {
  private Outputs() {}

  /** {@code --image} given, existing, readable, not a directory. */
  static void requireImage(Path image) throws IOException {
    requireGiven(image, "--image");
    Checks.requireFile(image, "image");
    try (FileDevice d = FileDevice.openRead(image)) {
      if (SparseImage.is(d)) {
        throw new VerityParameterException(SparseImage.refusal(image.toString()));
      }
    }
  }

  /** An option avbtool requires (argparse's "the following arguments are required"). */
  static void requireGiven(Object value, String option) {
    if (value == null) {
      throw new CliException(ExitCode.USAGE, "missing required option '" + option + "'");
    }
  }

  /**
   * {@code output} (when given) is none of the files the command reads: the image, a key, an
   * included image. An image changed in place is its own output, and so is not checked against
   * itself.
   */
  static void check(Path image, Path output, String outputName, List<Path> inputs)
      throws IOException {
    check("--image", image, output, outputName, inputs);
  }

  /** As {@link #check(Path, Path, String, List)}, the main input named {@code inputName}. */
  static void check(String inputName, Path input, Path output, String outputName, List<Path> inputs)
      throws IOException {
    new DistinctFiles()
        .input(inputName, input)
        .inputs("input", inputs)
        .output(outputName, output)
        .check();
  }

  /** --threads, default one per core. */
  static int threads(Integer threads) {
    Checks.requireThreads(threads);
    return threads == null ? Runtime.getRuntime().availableProcessors() : threads;
  }
}
