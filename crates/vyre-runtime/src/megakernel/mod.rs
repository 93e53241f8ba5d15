//! Launch planning for persistent megakernel waves: how wide a workgroup is,
//! how many workgroups run, and how many queued slots each lane processes.

pub mod planner;
