//! `xtask compare --with`: a variant that runs one of the bundle's builds
//! with extra environment and flags, so that one build can be timed beside
//! itself with an option on (`--cuda-cluster`) or a kernel built otherwise
//! (`VYRE_CUDA_NVRTC_OPTIONS=-D...`), without a build of its own.

use crate::bundle::check_name;

/// `LABEL=BUILD [KEY=VALUE ...] [FLAG ...]`, parsed.
#[derive(Debug, PartialEq, Eq)]
pub struct With {
    /// The variant's name in the report (and its folder under `--out`).
    pub label: String,
    /// The bundle's build it runs.
    pub build: String,
    /// Environment for its runs: `KEY=VALUE` words before the first flag.
    pub env: Vec<(String, String)>,
    /// Flags added to its `xtask bench` runs and to its conformance run.
    pub flags: Vec<String>,
}

/// Parse a `--with` value. Words are split at white space, so a value holds
/// no space; a key given twice gets its values joined by one (two options:
/// `VYRE_CUDA_NVRTC_OPTIONS=-DA VYRE_CUDA_NVRTC_OPTIONS=-DB`).
pub fn parse_with(text: &str) -> Result<With, String> {
    let (label, rest) = text.split_once('=').ok_or_else(|| {
        format!(
            "--with `{text}` has no `=`. Fix: write LABEL=BUILD [KEY=VALUE ...] [FLAG ...], e.g. cluster=after --cuda-cluster."
        )
    })?;
    check_name(label)?;
    let mut words = rest.split_whitespace();
    let build = words.next().ok_or_else(|| {
        format!(
            "--with `{label}` names no build. Fix: write {label}=BUILD, a name the bundle lists."
        )
    })?;
    check_name(build)?;
    let mut env: Vec<(String, String)> = Vec::new();
    let mut flags: Vec<String> = Vec::new();
    for word in words {
        match word.split_once('=') {
            Some((key, value)) if flags.is_empty() && !word.starts_with('-') => {
                if key.is_empty() {
                    return Err(format!(
                        "--with `{label}`: `{word}` sets no variable. Fix: write KEY=VALUE."
                    ));
                }
                match env.iter_mut().find(|(k, _)| k == key) {
                    Some((_, joined)) => {
                        joined.push(' ');
                        joined.push_str(value);
                    }
                    None => env.push((key.into(), value.into())),
                }
            }
            _ if word.starts_with('-') || !flags.is_empty() => flags.push(word.into()),
            _ => {
                return Err(format!(
                    "--with `{label}`: `{word}` is neither KEY=VALUE nor a flag. Fix: put variables first, then flags starting with `-`."
                ));
            }
        }
    }
    if let Some(flag) = flags.iter().find(|f| super::sets_itself(f)) {
        return Err(format!(
            "--with `{label}` sets {flag}, which compare sets itself. Fix: drop it."
        ));
    }
    Ok(With {
        label: label.into(),
        build: build.into(),
        env,
        flags,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_with_variables_then_flags() {
        let with = parse_with(
            "claims=after VYRE_CUDA_NVRTC_OPTIONS=-DA VYRE_CUDA_NVRTC_OPTIONS=-DB --cuda-cluster",
        )
        .unwrap();
        assert_eq!(
            with,
            With {
                label: "claims".into(),
                build: "after".into(),
                env: vec![("VYRE_CUDA_NVRTC_OPTIONS".into(), "-DA -DB".into())],
                flags: vec!["--cuda-cluster".into()],
            }
        );
        let bare = parse_with("same=before").unwrap();
        assert!(bare.env.is_empty() && bare.flags.is_empty());
        // After the first flag every word is the flags' (a flag's value).
        let valued = parse_with("x=a --orders auto").unwrap();
        assert_eq!(valued.flags, ["--orders", "auto"]);
    }

    #[test]
    fn malformed_specs_say_how_to_fix_them() {
        for bad in [
            "no-equals",
            "=after",
            "x=",
            "x=a b",
            "x=a =1",
            "x=a --out d",
            "x=a --commit=c",
            "bad label=a",
        ] {
            let err = parse_with(bad).expect_err(bad);
            assert!(err.contains("Fix:"), "{bad}: {err}");
        }
    }
}
