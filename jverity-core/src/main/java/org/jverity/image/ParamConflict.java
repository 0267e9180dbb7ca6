package org.jverity.image;

/**
 * One override whose value the image does not have, e.g. data blocks 256 where 300 was given.
 *
 * @param parameter the parameter, in words ("data blocks", "hash algorithm", "hash type", ...)
 * @param actual the image's value, as text
 * @param given the override's value, as it was given
 */
public record ParamConflict(String parameter, String actual, String given) {}
