/** Types for scripts/generate-sdk-types.mjs, which sdk/test/generated-types.test.ts imports. */
export declare const SDK_TYPES_PATH: string;
export declare function renderSdkTypes(document: unknown): Promise<string>;
