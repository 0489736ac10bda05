package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "17d430631f91b31cd5c56175933ec7b9c143fa49a206027c60b357c6ae28fbdb";

  private IdlChecksum() {}
}
