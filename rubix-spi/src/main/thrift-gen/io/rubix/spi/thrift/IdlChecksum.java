package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "be49cf62becdca512303361f1b8b2568439c50c614333dd985185a3b430ea51a";

  private IdlChecksum() {}
}
