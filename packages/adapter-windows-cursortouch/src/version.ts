import { readPackageVersion } from '@vmhub/core';

/** This package's version, from its package.json. */
export const ADAPTER_VERSION = readPackageVersion(import.meta.url);
