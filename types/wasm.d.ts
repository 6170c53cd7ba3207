// Wrangler bundles `.wasm` imports as compiled WebAssembly.Module objects (CompiledWasm rule).
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
