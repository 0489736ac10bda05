package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "88d60d4fb628c8361529c540c6ef19e0744866186e49828a9840b4e3afae46ab";

  private IdlChecksum() {}
}
