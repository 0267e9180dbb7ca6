/**
 * Devices at a URL: HTTP(S) range requests and S3 objects (SigV4 over the JDK's HttpClient, no
 * SDK), pinned to the object as it was at open, fetched in coalesced, parallel ranges with retries,
 * kept in a bounded local cache. Nothing here is trusted: the verified reader checks every block it
 * returns, and its recheck fetches a block that did not verify again from the origin.
 */
module org.jverity.remote {
  requires org.jverity.core;
  requires java.net.http;

  exports org.jverity.remote;
  exports org.jverity.remote.http;
  exports org.jverity.remote.cache;
  exports org.jverity.remote.s3;
}
