package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "035bdd09cc7bd6b4339fe009075ff97af8ad065a25c787f6ad36cafef3e4495b";

  private IdlChecksum() {}
}
