/**
 * Public surface of the control-plane document, kept at this path for its importers. The document
 * is built from the modules in spec/control-plane/.
 */
export * from './control-plane/index.ts'
