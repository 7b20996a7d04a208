/** Types for extract-openapi.mjs (the script is plain JS so it runs from a bare checkout). */
export declare const OPERATIONS: string[];
export declare function extractSubset(doc: any, source: { repository: string; file: string; commit: string }): any;
