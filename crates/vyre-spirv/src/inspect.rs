//! Reading SPIR-V words back: enough to check which scopes and memory
//! semantics naga gave a kernel's atomics and barriers (`spirv-dis` shows
//! the same; this lets a test hold the kernels to it).

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
}

/// One atomic or barrier instruction with its scopes and semantics resolved
/// from the module's constants.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct MemoryOp {
    /// The opcode's name (`OpAtomicIAdd`, `OpControlBarrier`, ...).
    pub op: &'static str,
    /// Execution scope (barriers only).
    pub execution_scope: Option<u32>,
    /// Memory scope.
    pub memory_scope: u32,
    /// Memory semantics (the first, for compare-exchange).
    pub semantics: u32,
}

/// Why words are not a SPIR-V module this reader understands.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct InspectError(pub String);

/// Operand positions of the scope operands after the opcode word:
/// `(name, execution scope, memory scope, semantics)`.
fn layout(opcode: u32) -> Option<(&'static str, Option<usize>, usize, usize)> {
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
        224 => Some(("OpControlBarrier", Some(0), 1, 2)),
        225 => Some(("OpMemoryBarrier", None, 0, 1)),
        227 => Some(("OpAtomicLoad", None, 3, 4)),
        228 => Some(("OpAtomicStore", None, 1, 2)),
        229..=242 => Some((RMW[(opcode - 229) as usize], None, 3, 4)),
        _ => None,
    }
}

/// Every atomic and barrier of `words`, in order.
///
/// # Errors
///
/// [`InspectError`] when the header or an instruction is malformed, or a
/// scope is not a 32-bit constant.
pub fn memory_ops(words: &[u32]) -> Result<Vec<MemoryOp>, InspectError> {
    const MAGIC: u32 = 0x0723_0203;
    const OP_CONSTANT: u32 = 43;
    if words.len() < 5 || words[0] != MAGIC {
        return Err(InspectError("not a SPIR-V module (bad header)".into()));
    }
    let mut constants = HashMap::new();
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
        if opcode == OP_CONSTANT && operands.len() == 3 {
            constants.insert(operands[1], operands[2]);
        } else if let Some(shape) = layout(opcode) {
            pending.push((shape, operands.to_vec()));
        }
        at += count;
    }
    let value = |operands: &[u32], index: usize| -> Result<u32, InspectError> {
        let id = operands
            .get(index)
            .ok_or_else(|| InspectError("missing scope operand".into()))?;
        constants
            .get(id)
            .copied()
            .ok_or_else(|| InspectError(format!("scope id %{id} is not a 32-bit constant")))
    };
    pending
        .into_iter()
        .map(|((op, exec, memory, sem), operands)| {
            Ok(MemoryOp {
                op,
                execution_scope: exec.map(|i| value(&operands, i)).transpose()?,
                memory_scope: value(&operands, memory)?,
                semantics: value(&operands, sem)?,
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
    fn scopes_are_resolved_through_constants() {
        let words = module(&[
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
            // OpControlBarrier %11 %10 %12
            (4 << 16) | 224,
            11,
            10,
            12,
            // %20 = OpAtomicIAdd %1 %5 %10 %11 %10
            (7 << 16) | 234,
            1,
            20,
            5,
            10,
            11,
            10,
        ]);
        let ops = memory_ops(&words).unwrap();
        assert_eq!(
            ops,
            [
                MemoryOp {
                    op: "OpControlBarrier",
                    execution_scope: Some(2),
                    memory_scope: 1,
                    semantics: 72
                },
                MemoryOp {
                    op: "OpAtomicIAdd",
                    execution_scope: None,
                    memory_scope: 1,
                    semantics: 2
                },
            ]
        );
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
