package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "a9226edeb093c82e4425c3278220f2b33652f76690b2ea5c24af72d9c362254f";

  private IdlChecksum() {}
}
