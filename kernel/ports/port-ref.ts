/**
 * A typed handle on a port. `multiple` ports (audit sinks, detectors, routes) collect every provider
 * into a list; the others accept exactly one provider and the registry refuses a second.
 */
export interface PortRef<T, M extends boolean = boolean> {
  readonly id: string;
  readonly multiple: M;
  /** Phantom field: carries T for the type checker only. */
  readonly __type?: T;
}

export function createPortRef<T>(id: string, options: { multiple: true }): PortRef<T, true>;
export function createPortRef<T>(id: string, options?: { multiple?: false }): PortRef<T, false>;
export function createPortRef<T>(id: string, options: { multiple?: boolean } = {}): PortRef<T> {
  return Object.freeze({ id, multiple: options.multiple ?? false });
}
