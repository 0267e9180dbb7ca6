/**
 * The GUID Partition Table (UEFI 2.10, chapter 5): the protective MBR, the header and its backup,
 * the partition entries, their CRC-32s. Integers little-endian; GUIDs in the mixed-endian layout
 * ({@link org.jverity.ddi.gpt.Guids}).
 */
package org.jverity.ddi.gpt;
