package dev.svckms.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Filters for listKeys (GET /v1/keys); every one optional. {@code name} is exact or a glob where
 * {@code *} matches any run of characters; {@code createdAfter} and {@code createdBefore} are exclusive
 * RFC 3339 times; {@code tags} are {@code key:value} filters, every one of which must match; {@code limit}
 * is keys per page, 1..1000 (default 100); {@code cursor} is the {@code nextCursor} of the previous page.
 */
public record KeyQuery(String name, String state, String algorithm, String owner, String createdAfter,
        String createdBefore, Integer limit, String cursor, List<String> tags) {

    /** The filters without tags, as before keys had them. */
    public KeyQuery(String name, String state, String algorithm, String owner, String createdAfter,
            String createdBefore, Integer limit, String cursor) {
        this(name, state, algorithm, owner, createdAfter, createdBefore, limit, cursor, List.of());
    }

    /** No filter: the first page of every key the caller may read. */
    public static KeyQuery all() {
        return new KeyQuery(null, null, null, null, null, null, null, null, List.of());
    }

    public KeyQuery withName(String value) {
        return new KeyQuery(value, state, algorithm, owner, createdAfter, createdBefore, limit, cursor, tags);
    }

    public KeyQuery withState(String value) {
        return new KeyQuery(name, value, algorithm, owner, createdAfter, createdBefore, limit, cursor, tags);
    }

    public KeyQuery withAlgorithm(String value) {
        return new KeyQuery(name, state, value, owner, createdAfter, createdBefore, limit, cursor, tags);
    }

    public KeyQuery withOwner(String value) {
        return new KeyQuery(name, state, algorithm, value, createdAfter, createdBefore, limit, cursor, tags);
    }

    public KeyQuery withCreatedAfter(String value) {
        return new KeyQuery(name, state, algorithm, owner, value, createdBefore, limit, cursor, tags);
    }

    public KeyQuery withCreatedBefore(String value) {
        return new KeyQuery(name, state, algorithm, owner, createdAfter, value, limit, cursor, tags);
    }

    public KeyQuery withLimit(int value) {
        return new KeyQuery(name, state, algorithm, owner, createdAfter, createdBefore, value, cursor, tags);
    }

    /** Only keys that also carry this tag: each call adds one, and a key must carry every one. */
    public KeyQuery withTag(String key, String value) {
        List<String> more = new ArrayList<>(tags == null ? List.of() : tags);
        more.add(key + ":" + value);
        return new KeyQuery(name, state, algorithm, owner, createdAfter, createdBefore, limit, cursor,
                List.copyOf(more));
    }

    /** The same filters from where the page that gave {@code nextCursor} ended. */
    public KeyQuery withCursor(String value) {
        return new KeyQuery(name, state, algorithm, owner, createdAfter, createdBefore, limit, value, tags);
    }

    Map<String, Object> parameters() {
        Map<String, Object> p = new LinkedHashMap<>();
        if (name != null) p.put("name", name);
        if (state != null) p.put("state", state);
        if (algorithm != null) p.put("algorithm", algorithm);
        if (owner != null) p.put("owner", owner);
        if (createdAfter != null) p.put("createdAfter", createdAfter);
        if (createdBefore != null) p.put("createdBefore", createdBefore);
        if (limit != null) p.put("limit", limit.toString());
        if (cursor != null) p.put("cursor", cursor);
        // A list repeats the parameter: tag=team:payments&tag=env:prod.
        if (tags != null && !tags.isEmpty()) p.put("tag", tags);
        return p;
    }
}
