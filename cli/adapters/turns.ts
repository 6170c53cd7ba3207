/**
 * Which of the person's messages a session has not read yet. A framework hands the adapter the
 * conversation as it stands — from its start, or a window of its latest messages — and the
 * session holds the turns read so far. The longest run of the conversation's first messages that
 * ends the session's turns is what was read already; what follows it is new. With no overlap at
 * all (a window past everything read, or turns the host read itself) every message is read:
 * the person did type each of them, so a repeat adds nothing that was not theirs.
 */
export function newTurns(recorded: readonly string[], conversation: readonly string[]): string[] {
  for (let k = Math.min(recorded.length, conversation.length); k > 0; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = recorded[recorded.length - k + i] === conversation[i];
    if (same) return conversation.slice(k);
  }
  return [...conversation];
}
