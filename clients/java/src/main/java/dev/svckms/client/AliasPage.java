package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * One page of aliases, by name. {@code nextAfter} is present while there may be more: pass it as
 * {@code after} for the next page (which may hold fewer aliases, or none: only those of keys the caller
 * may read are answered).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AliasPage(List<Alias> aliases, String nextAfter) {

    public boolean hasMore() {
        return nextAfter != null;
    }
}
