/**
 * AVB's on-disk structures and their byte codecs: the 64-byte {@code AVBf} footer, the vbmeta image
 * (header, authentication block, auxiliary block), the five descriptors, the algorithms, the
 * public-key blob and signing. All integers big-endian.
 */
package org.jverity.avb;
