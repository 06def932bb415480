package dev.svckms.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One HTTP exchange with the service on the JDK's own client: credentials, a request id, a timeout,
 * retries of calls that are safe to repeat (503 and lost connections only), and the service's
 * {@code {error, message}} answers turned into {@link SvcApiException}.
 */
final class HttpTransport {
    private static final int RETRIES = 3;

    private final HttpClient http;
    private final ObjectMapper json;
    private final URI baseUrl;
    private final Map<String, String> credentialHeaders;
    private final Duration timeout;

    HttpTransport(HttpClient http, ObjectMapper json, URI baseUrl, Map<String, String> credentialHeaders, Duration timeout) {
        this.http = http;
        this.json = json;
        this.baseUrl = baseUrl;
        this.credentialHeaders = credentialHeaders;
        this.timeout = timeout;
    }

    /** The same transport (one connection pool) with these headers added or, where a value is null, removed. */
    HttpTransport withHeaders(Map<String, String> changes) {
        Map<String, String> headers = new java.util.LinkedHashMap<>(credentialHeaders);
        changes.forEach((name, value) -> {
            if (value == null) headers.remove(name);
            else headers.put(name, value);
        });
        return new HttpTransport(http, json, baseUrl, Map.copyOf(headers), timeout);
    }

    /** Sends the call; {@code idempotent} calls change no key state, so a retry cannot do anything twice. */
    <T> T send(String method, String path, Map<String, ?> query, Object body, boolean idempotent, Class<T> type) {
        return send(method, path, query, body, Map.of(), idempotent, type);
    }

    /**
     * The same with headers of this call alone (If-Match); they are set before the credentials, which win.
     * A query value that is a list repeats its parameter ({@code tag=a:1&tag=b:2}).
     */
    <T> T send(String method, String path, Map<String, ?> query, Object body, Map<String, String> headers,
            boolean idempotent, Class<T> type) {
        String requestId = UUID.randomUUID().toString();
        HttpRequest request = request(method, path, query, body, headers, requestId);
        int attempts = idempotent ? RETRIES + 1 : 1;
        for (int attempt = 1; ; attempt++) {
            HttpResponse<byte[]> response;
            try {
                response = exchange(request);
            } catch (HttpTimeoutException e) {
                if (attempt >= attempts) throw new SvcApiException("Timeout", method + " " + path + " got no answer within " + timeout.toMillis() + " ms", requestId, e);
                pause(attempt);
                continue;
            } catch (IOException e) {
                if (attempt >= attempts) throw new SvcApiException("NetworkError", method + " " + baseUrl + path + ": " + e, requestId, e);
                pause(attempt);
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SvcApiException("Aborted", method + " " + path + " was interrupted", requestId, e);
            }
            int status = response.statusCode();
            if (status >= 200 && status < 300) return read(response.body(), type, requestId);
            if (status != 503 || attempt >= attempts) throw failure(response, requestId);
            pause(attempt);
        }
    }

    /**
     * One attempt, bounded by the timeout from sending to the last byte of the body: the JDK's own request
     * timeout stops at the headers, so an answer whose body stalls would otherwise block the caller forever.
     */
    private HttpResponse<byte[]> exchange(HttpRequest request) throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<byte[]>> pending = http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
        try {
            return pending.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            pending.cancel(true);
            throw new HttpTimeoutException("no complete answer within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            pending.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) throw io;
            if (cause instanceof RuntimeException runtime) throw runtime;
            throw new IOException(cause);
        }
    }

    private HttpRequest request(String method, String path, Map<String, ?> query, Object body,
            Map<String, String> headers, String requestId) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(baseUrl.resolve((path.startsWith("/") ? path.substring(1) : path) + queryString(query)))
                .timeout(timeout)
                .header("Accept", "application/json")
                .header("X-Request-Id", requestId);
        headers.forEach(builder::header);
        credentialHeaders.forEach(builder::header);
        if (body == null) return builder.method(method, HttpRequest.BodyPublishers.noBody()).build();
        try {
            return builder.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)))
                    .build();
        } catch (IOException e) {
            throw new SvcApiException("BadRequest", "the request body could not be written as JSON: " + e.getMessage(), requestId, e);
        }
    }

    private static String queryString(Map<String, ?> query) {
        if (query == null || query.isEmpty()) return "";
        StringJoiner joined = new StringJoiner("&", "?", "");
        query.forEach((k, v) -> {
            for (Object each : v instanceof Iterable<?> values ? values : List.of(v)) {
                String value = URLEncoder.encode(String.valueOf(each), StandardCharsets.UTF_8);
                joined.add(URLEncoder.encode(k, StandardCharsets.UTF_8) + "=" + value);
            }
        });
        return joined.toString();
    }

    private <T> T read(byte[] body, Class<T> type, String requestId) {
        try {
            return json.readValue(body, type);
        } catch (IOException e) {
            throw new SvcApiException("BadResponse", "the service's answer is not the JSON expected: " + e.getMessage(), requestId, e);
        }
    }

    private SvcApiException failure(HttpResponse<byte[]> response, String requestId) {
        String id = response.headers().firstValue("X-Request-Id").orElse(requestId);
        String text = new String(response.body(), StandardCharsets.UTF_8);
        try {
            JsonNode node = json.readTree(text);
            if (node != null && node.path("error").isTextual()) {
                return new SvcApiException(node.get("error").asText(), response.statusCode(), node.path("message").asText(""), id);
            }
        } catch (IOException e) {
            // Not the service's JSON error body (a proxy in between, perhaps): report the status and the text.
        }
        String excerpt = text.length() > 200 ? text.substring(0, 200) : text;
        return new SvcApiException("Http" + response.statusCode(), response.statusCode(), "HTTP " + response.statusCode() + ": " + excerpt, id);
    }

    /** Full-jitter exponential backoff: up to 100 ms, 200 ms, 400 ms... */
    private static void pause(int attempt) {
        long ceiling = Math.min(2_000L, 100L << (attempt - 1));
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(ceiling + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SvcApiException("Aborted", "interrupted while waiting to retry", "", e);
        }
    }
}
