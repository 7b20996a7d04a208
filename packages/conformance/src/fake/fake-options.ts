/** Options of the fake provider (`providers.fake` in the server config). */
import { Type, type Static } from '@vmhub/core';

export const FakeProviderOptionsSchema = Type.Object({
  /**
   * Directory holding the machines, their sandboxes and the ledger. Share it between processes
   * (two servers and a reaper) to make them see the same machines.
   * Default: env VMHUB_FAKE_DIR, else `<os.tmpdir()>/vmhub-fake`.
   */
  dir: Type.Optional(Type.String({ minLength: 1 })),
  /** Make status() report the backend as down (for health and availability tests). Default false. */
  down: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export type FakeProviderOptions = Static<typeof FakeProviderOptionsSchema>;
