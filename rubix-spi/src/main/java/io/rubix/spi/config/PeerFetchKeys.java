package io.rubix.spi.config;

import java.util.List;

/** Keys of peer fetches: an owner node fetching blocks from the source for the peers that ask it, and read-ahead from owners. */
public final class PeerFetchKeys {
  public static final ConfigKey FETCH_ENABLED = new ConfigKey("rubix.network.transfer.fetch.enabled", "true",
      "On the BookKeeper: fetch blocks a peer asks for and this node has not cached from the source (once, coalesced with every other reader of the node), cache them and serve them. On readers: ask owners to do so. Both sides must allow it; off, a block the owner lacks is read from the source by the reader.");
  public static final ConfigKey FETCH_THREADS = new ConfigKey("rubix.network.transfer.fetch.threads", "4",
      "Peer requests a BookKeeper fills from the source at once; as many more wait for a free fill, and a request beyond those is answered NOT_CACHED at once (the reader reads the source).");
  public static final ConfigKey FETCH_TIMEOUT = new ConfigKey("rubix.network.transfer.fetch.timeout", "5s",
      "Longest time an owner waits for a fill to start sending, or for the next bytes of a block it is fetching for a peer, before it ends its answer there (NOT_CACHED when nothing was sent; the fetch goes on and caches the blocks); readers wait this much longer than rubix.network.transfer.timeout for an owner's bytes.");
  public static final ConfigKey FETCH_MAX_SIZE = new ConfigKey("rubix.network.transfer.fetch.max.size", "16m",
      "Most bytes one peer request may make an owner fetch from the source (at least one block); the owner serves the blocks it has, the reader reads the rest from the source.");
  public static final ConfigKey FETCH_SCHEMES = new ConfigKey("rubix.network.transfer.fetch.schemes", "s3a,s3,s3n,gs,abfs,abfss,wasb,wasbs,oss,hdfs",
      "URI schemes of objects an owner fetches for peers, with its own credentials (never file: a peer must not read the owner's local files).");
  public static final ConfigKey FETCH_ALLOWED_AUTHORITIES = new ConfigKey("rubix.network.transfer.fetch.allowed.authorities", null,
      "Stores an owner fetches from for peers, comma-separated, case-insensitive: scheme://authority (s3a://bucket, hdfs://namenode:8020), a bare authority (bucket, host[:port]) for every scheme of rubix.network.transfer.fetch.schemes, or * for any; a fill request for another one gets BAD_REQUEST before any connection is made. Unset: the stores the daemon's own configuration names, that is fs.defaultFS and scheme://<bucket> for every per-bucket setting fs.<scheme>.bucket.<bucket>.<option> (bucket names without dots), of the fetched schemes. Unset is safe: a peer cannot make the owner connect to a store nobody configured it for, nor open one file system per made-up bucket.");
  public static final ConfigKey READAHEAD_MAX = new ConfigKey("rubix.network.transfer.readahead.max", "16m",
      "Read-ahead of a sequential reader over blocks other nodes own: how far ahead of the read it fetches them from their owners (bytes with suffix, held in memory per stream; 0 disables). Needs rubix.cache.readahead.max > 0.");

  public static final ConfigKey HANDOFF_WINDOW = new ConfigKey("rubix.network.transfer.handoff.window", "30m",
      "For this long after a reading JVM starts (a node joining the cluster), a block its node now owns and has not cached is first asked of the node that owned it before (the split's runner-up), only if cached there, and fetched from the source only when that node does not serve it: scale-out moves cached blocks between nodes instead of fetching them again (0 disables).");

  private PeerFetchKeys() {}

  /** Every key declared here, in documentation order. */
  public static List<ConfigKey> all() {
    return List.of(FETCH_ENABLED, FETCH_THREADS, FETCH_TIMEOUT, FETCH_MAX_SIZE, FETCH_SCHEMES, FETCH_ALLOWED_AUTHORITIES, READAHEAD_MAX, HANDOFF_WINDOW);
  }
}
