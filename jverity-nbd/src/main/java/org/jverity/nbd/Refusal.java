package org.jverity.nbd;

/**
 * Why a request is answered with an error and not served: the error sent, and the message an ERROR
 * chunk carries once structured replies are on (a simple reply carries only the error).
 */
record Refusal(NbdError error, String message) {}
