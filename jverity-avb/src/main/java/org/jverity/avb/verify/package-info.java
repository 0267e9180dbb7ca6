/**
 * Verification as strict as libavb's: signatures, trusted and chained keys, flags and rollback
 * rules, and every descriptor checked against the image given; an AVB partition resolved to the
 * dm-verity parameters its hashtree descriptor names.
 */
package org.jverity.avb.verify;
