/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Base URL of the API (seed section 7); empty means the console's own origin. */
  readonly VITE_API_BASE_URL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
