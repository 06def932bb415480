package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The answer to a destroy with a waiting period: {@code destroyAt} set when the destruction is
 * scheduled (HTTP 202; the key keeps {@code state} and serves no call until then), otherwise the key
 * is Destroyed at {@code destroyedAt} and {@code erasure} says whether its storage is erased yet.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DestroyResult(String id, String state, String destroyAt, String destroyedAt, String erasure) {
    /** True when the key waits for its destruction instead of being destroyed now. */
    public boolean scheduled() {
        return destroyAt != null;
    }
}
