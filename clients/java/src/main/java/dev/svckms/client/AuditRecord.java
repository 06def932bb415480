package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Map;

/** One audit record: who did what to which resource, and how it ended. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AuditRecord(
        String id,
        String occurredAt,
        Principal principal,
        String operation,
        String resource,
        String outcome,
        Map<String, String> context,
        String correlationId) {

    /** The caller: its subject and kind (Human, Service or Agent). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Principal(String subject, String kind) {
    }
}
