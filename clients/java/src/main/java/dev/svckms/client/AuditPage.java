package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** One page of audit records, newest first; hasMore says another page follows at offset + limit. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AuditPage(List<AuditRecord> records, int limit, int offset, boolean hasMore) {
}
