/**
 * The hashtree and FEC parity AVB appends to a partition image, as avbtool lays them out: their
 * geometry, built and checked in place by the core's tree builder and FEC encoder.
 */
package org.jverity.avb.hashtree;
