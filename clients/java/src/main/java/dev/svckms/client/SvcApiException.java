package dev.svckms.client;

/**
 * The one exception the client throws. {@link #code()} is the service's error code (the {@code error}
 * field of its answer, listed in docs/errors.md) or, when no answer came back, {@code NetworkError} or
 * {@code Timeout} with status 0. {@link #requestId()} is the X-Request-Id the client sent, so even a
 * call that never got an answer can be found in the service's logs.
 */
public final class SvcApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String code;
    private final int status;
    private final String requestId;

    public SvcApiException(String code, int status, String message, String requestId) {
        super(message);
        this.code = code;
        this.status = status;
        this.requestId = requestId;
    }

    public SvcApiException(String code, String message, String requestId, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.status = 0;
        this.requestId = requestId;
    }

    /** The service's error code, for example {@code NotFound} or {@code InvalidState}. */
    public String code() {
        return code;
    }

    /** The HTTP status, or 0 when no answer came back. */
    public int status() {
        return status;
    }

    public String requestId() {
        return requestId;
    }
}
