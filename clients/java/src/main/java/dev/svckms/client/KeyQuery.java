package dev.svckms.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Filters for listKeys (GET /v1/keys); every one optional. {@code name} is exact or a glob where
 * {@code *} matches any run of characters; {@code createdAfter} and {@code createdBefore} are exclusive
 * RFC 3339 times; {@code limit} is keys per page, 1..1000 (default 100); {@code cursor} is the
 * {@code nextCursor} of the previous page.
 */
public record KeyQuery(String name, String state, String algorithm, String owner, String createdAfter, String createdBefore, Integer limit, String cursor) {

    /** No filter: the first page of every key the caller may read. */
    public static KeyQuery all() {
        return new KeyQuery(null, null, null, null, null, null, null, null);
    }

    public KeyQuery withName(String value) {
        return new KeyQuery(value, state, algorithm, owner, createdAfter, createdBefore, limit, cursor);
    }

    public KeyQuery withState(String value) {
        return new KeyQuery(name, value, algorithm, owner, createdAfter, createdBefore, limit, cursor);
    }

    public KeyQuery withAlgorithm(String value) {
        return new KeyQuery(name, state, value, owner, createdAfter, createdBefore, limit, cursor);
    }

    public KeyQuery withOwner(String value) {
        return new KeyQuery(name, state, algorithm, value, createdAfter, createdBefore, limit, cursor);
    }

    public KeyQuery withCreatedAfter(String value) {
        return new KeyQuery(name, state, algorithm, owner, value, createdBefore, limit, cursor);
    }

    public KeyQuery withCreatedBefore(String value) {
        return new KeyQuery(name, state, algorithm, owner, createdAfter, value, limit, cursor);
    }

    public KeyQuery withLimit(int value) {
        return new KeyQuery(name, state, algorithm, owner, createdAfter, createdBefore, value, cursor);
    }

    /** The same filters from where the page that gave {@code nextCursor} ended. */
    public KeyQuery withCursor(String value) {
        return new KeyQuery(name, state, algorithm, owner, createdAfter, createdBefore, limit, value);
    }

    Map<String, String> parameters() {
        Map<String, String> p = new LinkedHashMap<>();
        if (name != null) p.put("name", name);
        if (state != null) p.put("state", state);
        if (algorithm != null) p.put("algorithm", algorithm);
        if (owner != null) p.put("owner", owner);
        if (createdAfter != null) p.put("createdAfter", createdAfter);
        if (createdBefore != null) p.put("createdBefore", createdBefore);
        if (limit != null) p.put("limit", limit.toString());
        if (cursor != null) p.put("cursor", cursor);
        return p;
    }
}
