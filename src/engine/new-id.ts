import { monotonicFactory } from 'ulid';

/** Generates ULIDs that sort in creation order even within one millisecond. */
export const newId: (now?: number) => string = monotonicFactory();
