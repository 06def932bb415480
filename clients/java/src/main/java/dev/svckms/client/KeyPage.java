package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** One page of keys, newest first; {@code nextCursor} is null on the last page. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record KeyPage(List<ManagedKey> keys, String nextCursor) {

    public boolean hasMore() {
        return nextCursor != null;
    }
}
