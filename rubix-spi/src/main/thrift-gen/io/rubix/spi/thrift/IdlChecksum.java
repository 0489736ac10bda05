package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "907ec658b8d5783505f69f9f16a0caa9c5584c2b3d94b171569c6650be20afe9";

  private IdlChecksum() {}
}
