/** Whether one scrub removed every deleted row from the database's own files, and if not, why not. */
export interface ScrubOutcome {
  complete: boolean;
  reason?: string;
}
