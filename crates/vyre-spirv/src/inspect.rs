//! Reading SPIR-V words back: enough to check which scopes and memory
//! semantics naga gave a kernel's atomics and barriers, and which buffers
//! it reads or writes without atomics (`spirv-dis` shows the same; this
//! lets a test hold the kernels to it).

use std::collections::HashMap;

/// SPIR-V `Scope` values.
pub mod scope {
    /// `Device`.
    pub const DEVICE: u32 = 1;
    /// `Workgroup`.
    pub const WORKGROUP: u32 = 2;
}

/// SPIR-V `MemorySemantics` bits.
pub mod semantics {
    /// `AcquireRelease`.
    pub const ACQUIRE_RELEASE: u32 = 0x8;
    /// `UniformMemory` (storage buffers).
    pub const UNIFORM_MEMORY: u32 = 0x40;
    /// `WorkgroupMemory`.
    pub const WORKGROUP_MEMORY: u32 = 0x100;
}

/// SPIR-V `StorageClass` values.
pub mod storage_class {
    /// `Workgroup`.
    pub const WORKGROUP: u32 = 4;
    /// `StorageBuffer`.
    pub const STORAGE_BUFFER: u32 = 12;
}

/// One atomic, barrier, load or store, with its scopes and semantics
/// resolved from the module's constants and its pointer traced back to the
/// variable it points into.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct MemoryOp {
    /// The opcode's name (`OpAtomicIAdd`, `OpControlBarrier`, `OpLoad`, ...).
    pub op: &'static str,
    /// Execution scope (barriers only).
    pub execution_scope: Option<u32>,
    /// Memory scope (atomics and barriers).
    pub memory_scope: Option<u32>,
    /// Memory semantics (the first, for compare-exchange).
    pub semantics: Option<u32>,
    /// Storage class of the variable the pointer leads to (atomics, loads
    /// and stores whose pointer is a variable or an access chain into one).
    pub storage_class: Option<u32>,
    /// `Binding` decoration of that variable.
    pub binding: Option<u32>,
}

impl MemoryOp {
    /// Whether this is an atomic instruction.
    #[must_use]
    pub fn is_atomic(&self) -> bool {
        self.op.starts_with("OpAtomic")
    }
}

/// Why words are not a SPIR-V module this reader understands.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct InspectError(pub String);

/// Operand positions after the opcode word: `(name, execution scope,
/// memory scope, semantics, pointer)`.
type Shape = (
    &'static str,
    Option<usize>,
    Option<usize>,
    Option<usize>,
    Option<usize>,
);

fn layout(opcode: u32) -> Option<Shape> {
    // Atomics with a result: result type, result id, pointer, scope, semantics.
    const RMW: [&str; 14] = [
        "OpAtomicExchange",
        "OpAtomicCompareExchange",
        "OpAtomicCompareExchangeWeak",
        "OpAtomicIIncrement",
        "OpAtomicIDecrement",
        "OpAtomicIAdd",
        "OpAtomicISub",
        "OpAtomicSMin",
        "OpAtomicUMin",
        "OpAtomicSMax",
        "OpAtomicUMax",
        "OpAtomicAnd",
        "OpAtomicOr",
        "OpAtomicXor",
    ];
    match opcode {
        61 => Some(("OpLoad", None, None, None, Some(2))),
        62 => Some(("OpStore", None, None, None, Some(0))),
        224 => Some(("OpControlBarrier", Some(0), Some(1), Some(2), None)),
        225 => Some(("OpMemoryBarrier", None, Some(0), Some(1), None)),
        227 => Some(("OpAtomicLoad", None, Some(3), Some(4), Some(2))),
        228 => Some(("OpAtomicStore", None, Some(1), Some(2), Some(0))),
        229..=242 => Some((
            RMW[(opcode - 229) as usize],
            None,
            Some(3),
            Some(4),
            Some(2),
        )),
        _ => None,
    }
}

const OP_VARIABLE: u32 = 59;
const OP_ACCESS_CHAIN: u32 = 65;
const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
const OP_DECORATE: u32 = 71;
const OP_CONSTANT: u32 = 43;
const DECORATION_BINDING: u32 = 33;

/// What the module says about ids: constants, variables' storage classes
/// and bindings, and the base of every access chain.
#[derive(Default)]
struct Ids {
    constants: HashMap<u32, u32>,
    classes: HashMap<u32, u32>,
    bindings: HashMap<u32, u32>,
    chains: HashMap<u32, u32>,
}

impl Ids {
    /// The variable `pointer` leads to.
    fn variable(&self, mut pointer: u32) -> u32 {
        // Chains are acyclic: each base is defined before its chain.
        for _ in 0..64 {
            match self.chains.get(&pointer) {
                Some(&base) => pointer = base,
                None => break,
            }
        }
        pointer
    }
}

/// Every atomic, barrier, load and store of `words`, in order.
///
/// # Errors
///
/// [`InspectError`] when the header or an instruction is malformed, or a
/// scope is not a 32-bit constant.
pub fn memory_ops(words: &[u32]) -> Result<Vec<MemoryOp>, InspectError> {
    const MAGIC: u32 = 0x0723_0203;
    if words.len() < 5 || words[0] != MAGIC {
        return Err(InspectError("not a SPIR-V module (bad header)".into()));
    }
    let mut ids = Ids::default();
    let mut pending = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(InspectError(format!(
                "instruction at word {at} has length {count}"
            )));
        }
        let operands = &words[at + 1..at + count];
        match (opcode, operands) {
            (OP_CONSTANT, [_, id, value]) => {
                ids.constants.insert(*id, *value);
            }
            (OP_VARIABLE, [_, id, class, ..]) => {
                ids.classes.insert(*id, *class);
            }
            (OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN, [_, id, base, ..]) => {
                ids.chains.insert(*id, *base);
            }
            (OP_DECORATE, [target, DECORATION_BINDING, binding, ..]) => {
                ids.bindings.insert(*target, *binding);
            }
            _ => {
                if let Some(shape) = layout(opcode) {
                    pending.push((shape, operands.to_vec()));
                }
            }
        }
        at += count;
    }
    let value = |operands: &[u32], index: usize| -> Result<u32, InspectError> {
        let id = operands
            .get(index)
            .ok_or_else(|| InspectError("missing scope operand".into()))?;
        ids.constants
            .get(id)
            .copied()
            .ok_or_else(|| InspectError(format!("scope id %{id} is not a 32-bit constant")))
    };
    pending
        .into_iter()
        .map(|((op, exec, memory, sem, pointer), operands)| {
            let variable = pointer
                .and_then(|i| operands.get(i))
                .map(|&p| ids.variable(p));
            Ok(MemoryOp {
                op,
                execution_scope: exec.map(|i| value(&operands, i)).transpose()?,
                memory_scope: memory.map(|i| value(&operands, i)).transpose()?,
                semantics: sem.map(|i| value(&operands, i)).transpose()?,
                storage_class: variable.and_then(|v| ids.classes.get(&v).copied()),
                binding: variable.and_then(|v| ids.bindings.get(&v).copied()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &[u32]) -> Vec<u32> {
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, 100, 0];
        words.extend_from_slice(body);
        words
    }

    #[test]
    fn scopes_and_variables_are_resolved() {
        let words = module(&[
            // OpDecorate %30 Binding 9
            (4 << 16) | 71,
            30,
            33,
            9,
            // %10 = OpConstant %1 1 ; %11 = OpConstant %1 2 ; %12 = OpConstant %1 72
            (4 << 16) | 43,
            1,
            10,
            1,
            (4 << 16) | 43,
            1,
            11,
            2,
            (4 << 16) | 43,
            1,
            12,
            72,
            // %30 = OpVariable %2 StorageBuffer
            (4 << 16) | 59,
            2,
            30,
            12,
            // %31 = OpAccessChain %3 %30 %10
            (5 << 16) | 65,
            3,
            31,
            30,
            10,
            // OpControlBarrier %11 %10 %12
            (4 << 16) | 224,
            11,
            10,
            12,
            // %20 = OpAtomicIAdd %1 %31 %10 %11 %10
            (7 << 16) | 234,
            1,
            20,
            31,
            10,
            11,
            10,
            // %21 = OpLoad %1 %31
            (4 << 16) | 61,
            1,
            21,
            31,
        ]);
        let ops = memory_ops(&words).unwrap();
        assert_eq!(
            ops[0],
            MemoryOp {
                op: "OpControlBarrier",
                execution_scope: Some(2),
                memory_scope: Some(1),
                semantics: Some(72),
                storage_class: None,
                binding: None,
            }
        );
        assert_eq!(
            ops[1],
            MemoryOp {
                op: "OpAtomicIAdd",
                execution_scope: None,
                memory_scope: Some(1),
                semantics: Some(2),
                storage_class: Some(storage_class::STORAGE_BUFFER),
                binding: Some(9),
            }
        );
        assert!(ops[1].is_atomic() && !ops[2].is_atomic());
        assert_eq!((ops[2].op, ops[2].binding), ("OpLoad", Some(9)));
    }

    #[test]
    fn malformed_modules_are_refused() {
        assert!(memory_ops(&[1, 2, 3]).is_err());
        // An instruction that claims more words than remain.
        assert!(memory_ops(&module(&[(9 << 16) | 224, 1])).is_err());
        // A scope that is not a constant.
        assert!(memory_ops(&module(&[(4 << 16) | 224, 7, 8, 9])).is_err());
    }
}
