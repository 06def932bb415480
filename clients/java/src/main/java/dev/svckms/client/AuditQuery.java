package dev.svckms.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Filters for queryAudit; every one optional. {@code since} is inclusive and {@code until} exclusive
 * (ISO 8601); {@code limit} is clamped by the service to 1..1000.
 */
public record AuditQuery(String since, String until, String actor, String key, String op, Integer limit, Integer offset, String promptId) {

    /** The filters without promptId, as before it existed. */
    public AuditQuery(String since, String until, String actor, String key, String op, Integer limit, Integer offset) {
        this(since, until, actor, key, op, limit, offset, null);
    }

    /** No filter: the first page of everything the caller may see. */
    public static AuditQuery all() {
        return new AuditQuery(null, null, null, null, null, null, null, null);
    }

    public AuditQuery withActor(String value) {
        return new AuditQuery(since, until, value, key, op, limit, offset, promptId);
    }

    public AuditQuery withKey(String value) {
        return new AuditQuery(since, until, actor, value, op, limit, offset, promptId);
    }

    public AuditQuery withOperation(String value) {
        return new AuditQuery(since, until, actor, key, value, limit, offset, promptId);
    }

    public AuditQuery withSince(String value) {
        return new AuditQuery(value, until, actor, key, op, limit, offset, promptId);
    }

    public AuditQuery withUntil(String value) {
        return new AuditQuery(since, value, actor, key, op, limit, offset, promptId);
    }

    /** Only the calls that named this prompt (X-Svc-Prompt-Id; context agent.promptId). */
    public AuditQuery withPromptId(String value) {
        return new AuditQuery(since, until, actor, key, op, limit, offset, value);
    }

    public AuditQuery withPage(int pageLimit, int pageOffset) {
        return new AuditQuery(since, until, actor, key, op, pageLimit, pageOffset, promptId);
    }

    Map<String, String> parameters() {
        Map<String, String> p = new LinkedHashMap<>();
        if (since != null) p.put("since", since);
        if (until != null) p.put("until", until);
        if (actor != null) p.put("actor", actor);
        if (key != null) p.put("key", key);
        if (op != null) p.put("op", op);
        if (limit != null) p.put("limit", limit.toString());
        if (offset != null) p.put("offset", offset.toString());
        if (promptId != null) p.put("promptId", promptId);
        return p;
    }
}
