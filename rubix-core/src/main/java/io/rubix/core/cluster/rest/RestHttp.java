package io.rubix.core.cluster.rest;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.rubix.core.config.InvalidConfigException;
import io.rubix.spi.config.ClusterKeys;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * JSON GETs with a connect timeout and a deadline for the whole answer (headers and body), no
 * redirects followed (a standby ResourceManager redirects: the caller moves on instead), bounded body
 * size. Error messages name the URL and the status, never a header value.
 */
final class RestHttp {
  /** Largest answer read: a 10,000-node list is about 5 MiB. */
  static final int MAX_BODY_BYTES = 32 << 20;
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      // a Java server may write NaN (Presto's recentFailureRatio of a node never pinged)
      .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .build();

  private final HttpClient client;
  private final Duration connectTimeout;
  private final Duration requestTimeout;

  RestHttp(RestClientConfig config) {
    HttpClient.Builder builder = HttpClient.newBuilder()
        .connectTimeout(config.connectTimeout())
        .followRedirects(HttpClient.Redirect.NEVER);
    config.trustStore().ifPresent(store -> builder.sslContext(sslContext(store)));
    this.client = builder.build();
    this.connectTimeout = config.connectTimeout();
    this.requestTimeout = config.requestTimeout();
  }

  /**
   * The JSON document at {@code uri}.
   *
   * @throws IOException on a connection failure, a timeout, a status other than 2xx, an oversized or
   *     malformed answer
   */
  JsonNode getJson(URI uri, Map<String, String> headers) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).GET().timeout(requestTimeout).header("Accept", "application/json");
    headers.forEach(request::header);
    CompletableFuture<HttpResponse<byte[]>> future = client.sendAsync(request.build(), info -> new LimitedBodySubscriber(MAX_BODY_BYTES));
    HttpResponse<byte[]> response;
    try {
      // the deadline covers the body too: a server that stalls after its headers fails the request as well
      response = future.get(requestTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new IOException("No answer from " + uri + " within " + requestTimeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      future.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof HttpConnectTimeoutException) {
        throw new IOException("Cannot connect to " + uri + " within " + connectTimeout.toMillis() + " ms", cause);
      }
      if (cause instanceof HttpTimeoutException) {
        // the client's own request timeout can fire just before ours
        throw new IOException("No answer from " + uri + " within " + requestTimeout.toMillis() + " ms", cause);
      }
      throw new IOException("GET " + uri + " failed: " + cause, cause);
    }
    byte[] body = response.body();
    int status = response.statusCode();
    if (status < 200 || status > 299) {
      StringBuilder message = new StringBuilder("GET ").append(uri).append(" answered HTTP ").append(status);
      response.headers().firstValue("Location").ifPresent(location -> message.append(" (redirect to ").append(location).append(')'));
      if (status == 401 || status == 403) {
        message.append(" (check the user and credentials)");
      }
      String text = snippet(body);
      if (!text.isEmpty()) {
        message.append(": ").append(text);
      }
      throw new IOException(message.toString());
    }
    try {
      return MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw new IOException("Malformed JSON from " + uri + ": " + e.getOriginalMessage() + " (answer starts: " + snippet(body) + ")");
    }
  }

  /** The first 200 characters of an answer, on one line. */
  private static String snippet(byte[] body) {
    String text = new String(body, 0, Math.min(body.length, 400), StandardCharsets.UTF_8).replaceAll("\\s+", " ").trim();
    return text.length() > 200 ? text.substring(0, 200) + "..." : text;
  }

  private static SSLContext sslContext(RestClientConfig.TrustStore store) {
    try (InputStream in = Files.newInputStream(store.path())) {
      KeyStore keyStore = KeyStore.getInstance(store.type());
      keyStore.load(in, store.password().map(secret -> secret.reveal().toCharArray()).orElse(null));
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(keyStore);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, factory.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new InvalidConfigException(ClusterKeys.REST_TRUSTSTORE_PATH, store.path().toString(),
          "a readable " + store.type() + " trust store with the password of " + ClusterKeys.REST_TRUSTSTORE_PASSWORD.name() + " (" + e + ")");
    }
  }

  /** Collects a body of at most {@code limit} bytes; a longer one fails the request and closes its connection. */
  private static final class LimitedBodySubscriber implements HttpResponse.BodySubscriber<byte[]> {
    private final int limit;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final List<ByteBuffer> buffers = new ArrayList<>();
    private int size;
    private Flow.Subscription subscription;

    LimitedBodySubscriber(int limit) {
      this.limit = limit;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = requireNonNull(subscription, "subscription is null");
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      if (result.isDone()) {
        return;
      }
      for (ByteBuffer item : items) {
        size += item.remaining();
        buffers.add(item);
      }
      if (size > limit) {
        buffers.clear();
        subscription.cancel();
        result.completeExceptionally(new IOException("answer larger than " + limit + " bytes"));
      }
    }

    @Override
    public void onError(Throwable throwable) {
      buffers.clear();
      result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
      byte[] bytes = new byte[size];
      int offset = 0;
      for (ByteBuffer buffer : buffers) {
        int length = buffer.remaining();
        buffer.get(bytes, offset, length);
        offset += length;
      }
      buffers.clear();
      result.complete(bytes);
    }
  }
}
