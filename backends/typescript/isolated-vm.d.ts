// Declarations of isolated-vm.js: isolated-vm's own types, value and namespace alike (ivm.Isolate
// as a class and as a type), whichever line tsconfig.json's "paths" finds installed.
import IsolatedVM from 'isolated-vm';

export default IsolatedVM;
