package org.jverity.nbd;

/**
 * What the handshake agreed on, for the transmission phase.
 *
 * @param transport the connection (encrypted if STARTTLS was negotiated)
 * @param export the export chosen
 * @param structured whether structured replies were negotiated
 * @param blockStatus whether {@code base:allocation} was selected for this export
 * @param flags the transmission flags sent
 */
record Session(
    Transport transport, Export export, boolean structured, boolean blockStatus, int flags) {}
