package org.jverity.cli.daemon;

import java.nio.file.Path;
import org.jverity.verify.CorruptionMode;
import org.jverity.verify.IoClass;
import org.jverity.cli.verity.FecOptions;
import org.jverity.cli.verity.RootHashSignatureOptions;
import org.jverity.cli.verity.VerityOptions;

/**
 * One image to serve, as {@code open}'s arguments or a section of {@code serve}'s config file
 * describe it, before any file is opened. Immutable once built (the options are not changed after).
 *
 * @param name the export name clients ask for ("" is the default export)
 * @param description shown by {@code nbdinfo}; may be empty
 * @param data the data image
 * @param hash the hash device
 * @param rootText the root hash in hex or an image identity, as given (not yet parsed)
 * @param signature the root hash's signature and the certificates trusted to make it; null for none
 * @param options the tree's options (algorithm, block sizes, offsets, superblock)
 * @param mode what a corrupted block does
 * @param ignoreZeroBlocks dm-verity's {@code ignore_zero_blocks}
 * @param checkAtMostOnce dm-verity's {@code check_at_most_once}
 * @param ioClass the I/O class of the export's reads
 * @param fec where the Reed-Solomon parity is; null for none
 */
public record ExportSpec(
    String name,
    String description,
    Path data,
    Path hash,
    String rootText,
    RootHashSignatureOptions signature,
    VerityOptions options,
    CorruptionMode mode,
    boolean ignoreZeroBlocks,
    boolean checkAtMostOnce,
    IoClass ioClass,
    FecOptions fec) {}
