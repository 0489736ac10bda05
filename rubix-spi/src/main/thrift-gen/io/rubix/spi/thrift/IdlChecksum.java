package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "9c754529fd7a67dd0ad83412e29d20f0ae9e27d336248879448a1b9c9d3c4ed9";

  private IdlChecksum() {}
}
