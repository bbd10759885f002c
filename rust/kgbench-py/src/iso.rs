//! Binding of `kgbench_core::iso` as `kgbench._core.iso`.
//!
//! Converts Python node ids (any hashable, compared like dict keys: identity,
//! then hash and `==`) to small per-subgraph integers, then calls the core.
//! The typed public API with docstrings is `kgbench.iso` (Python).

use std::collections::HashMap;

use kgbench_core::iso as core;
use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple, PyType};

/// A Python class imported once, lazily (the error classes live in Python so
/// that they can subclass `kgbench.errors.InputError`).
fn py_class<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    module: &str,
    name: &str,
) -> PyResult<Bound<'py, PyType>> {
    cell.get_or_try_init(py, || {
        let cls = py.import(module)?.getattr(name)?.cast_into::<PyType>()?;
        Ok::<_, PyErr>(cls.unbind())
    })
    .map(|c| c.bind(py).clone())
}

static INPUT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INVALID_SUBGRAPH: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static INVALID_IDENTIFIER: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static NOT_A_TREE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn input_error(py: Python<'_>, msg: String) -> PyErr {
    match py_class(py, &INPUT_ERROR, "kgbench.errors", "InputError") {
        Ok(cls) => PyErr::from_value(match cls.call1((msg,)) {
            Ok(v) => v,
            Err(e) => return e,
        }),
        Err(e) => e,
    }
}

/// Re-raise `err` with the same class and `ctx: ` prefixed to its message.
fn with_context(py: Python<'_>, err: PyErr, ctx: &str) -> PyErr {
    let ty = err.get_type(py);
    let msg = format!("{ctx}: {}", err.value(py));
    match ty.call1((msg,)) {
        Ok(v) => PyErr::from_value(v),
        Err(_) => err,
    }
}

fn invalid_subgraph(py: Python<'_>, defects: &[core::Defect], index: Option<usize>) -> PyErr {
    let cls = match py_class(
        py,
        &INVALID_SUBGRAPH,
        "kgbench.iso.errors",
        "InvalidAnswerSubgraph",
    ) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let base = core::InvalidAnswerSubgraph(defects.to_vec()).to_string();
    let msg = match index {
        Some(i) => format!("subgraph {i}: {base}"),
        None => base,
    };
    let names: Vec<&str> = defects.iter().map(|d| d.name()).collect();
    match PyTuple::new(py, names).and_then(|t| cls.call1((msg, t, index))) {
        Ok(v) => PyErr::from_value(v),
        Err(e) => e,
    }
}

/// Per-subgraph map from Python node ids to `0..n` with dict semantics.
struct Interner<'py> {
    keys: Vec<(isize, Bound<'py, PyAny>)>,
    by_hash: HashMap<isize, Vec<u32>>,
}

const LINEAR_SCAN_MAX: usize = 16;

impl<'py> Interner<'py> {
    fn new() -> Self {
        Interner {
            keys: Vec::with_capacity(8),
            by_hash: HashMap::new(),
        }
    }

    fn clear(&mut self) {
        self.keys.clear();
        self.by_hash.clear();
    }

    fn len(&self) -> u32 {
        self.keys.len() as u32
    }

    fn intern(&mut self, obj: Borrowed<'_, 'py, PyAny>) -> PyResult<u32> {
        let h = obj.hash()?;
        if self.keys.len() <= LINEAR_SCAN_MAX {
            for (i, (kh, k)) in self.keys.iter().enumerate() {
                if k.is(&*obj) || (*kh == h && k.eq(&*obj)?) {
                    return Ok(i as u32);
                }
            }
        } else {
            if self.by_hash.is_empty() {
                for (i, (kh, _)) in self.keys.iter().enumerate() {
                    self.by_hash.entry(*kh).or_default().push(i as u32);
                }
            }
            if let Some(list) = self.by_hash.get(&h) {
                for &i in list {
                    let k = &self.keys[i as usize].1;
                    if k.is(&*obj) || k.eq(&*obj)? {
                        return Ok(i);
                    }
                }
            }
            self.by_hash
                .entry(h)
                .or_default()
                .push(self.keys.len() as u32);
        }
        self.keys.push((h, obj.to_owned()));
        Ok(self.keys.len() as u32 - 1)
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn edge_error(edge: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "expected a (head, tail) pair or a (head, relation, tail) triple, got {} {}",
        type_name(edge),
        edge.repr()
            .map(|r| r.to_string())
            .unwrap_or_else(|_| "?".into())
    ))
}

/// Append one edge's two endpoints.
fn push_edge<'py>(
    edge: &Bound<'py, PyAny>,
    interner: &mut Interner<'py>,
    out: &mut Vec<[u32; 2]>,
) -> PyResult<()> {
    if let Ok(t) = edge.cast::<PyTuple>() {
        let n = t.len();
        if n == 2 || n == 3 {
            let a = interner.intern(t.get_borrowed_item(0)?)?;
            let b = interner.intern(t.get_borrowed_item(n - 1)?)?;
            out.push([a, b]);
            return Ok(());
        }
        return Err(edge_error(edge));
    }
    if edge.is_instance_of::<PyString>() || edge.is_instance_of::<PyBytes>() {
        return Err(edge_error(edge));
    }
    let n = edge.len().map_err(|_| edge_error(edge))?;
    if n != 2 && n != 3 {
        return Err(edge_error(edge));
    }
    let (x, y) = if let Ok(l) = edge.cast::<PyList>() {
        (l.get_item(0)?, l.get_item(n - 1)?)
    } else {
        (edge.get_item(0)?, edge.get_item(n - 1)?)
    };
    let a = interner.intern(x.as_borrowed())?;
    let b = interner.intern(y.as_borrowed())?;
    out.push([a, b]);
    Ok(())
}

fn push_edges<'py>(
    py: Python<'py>,
    edges: &Bound<'py, PyAny>,
    interner: &mut Interner<'py>,
    out: &mut Vec<[u32; 2]>,
) -> PyResult<()> {
    if edges.is_instance_of::<PyString>() || edges.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(format!(
            "edges must be a list of pairs or triples, got {}",
            type_name(edges)
        )));
    }
    let ctx = |i: usize, e: PyErr| with_context(py, e, &format!("edge {i}"));
    if let Ok(list) = edges.cast::<PyList>() {
        for (i, e) in list.iter().enumerate() {
            push_edge(&e, interner, out).map_err(|err| ctx(i, err))?;
        }
    } else if let Ok(tuple) = edges.cast::<PyTuple>() {
        for (i, e) in tuple.iter().enumerate() {
            push_edge(&e, interner, out).map_err(|err| ctx(i, err))?;
        }
    } else {
        let iter = edges.try_iter().map_err(|_| {
            PyTypeError::new_err(format!(
                "edges must be a list of pairs or triples, got {}",
                type_name(edges)
            ))
        })?;
        for (i, e) in iter.enumerate() {
            push_edge(&e?, interner, out).map_err(|err| ctx(i, err))?;
        }
    }
    Ok(())
}

fn push_seeds<'py>(
    py: Python<'py>,
    seeds: &Bound<'py, PyAny>,
    interner: &mut Interner<'py>,
    out: &mut Vec<u32>,
) -> PyResult<()> {
    if seeds.is_instance_of::<PyString>() || seeds.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(
            "seeds must be a collection of node ids, not a single str",
        ));
    }
    let ctx = |i: usize, e: PyErr| with_context(py, e, &format!("seed {i}"));
    if let Ok(list) = seeds.cast::<PyList>() {
        for (i, s) in list.iter().enumerate() {
            out.push(interner.intern(s.as_borrowed()).map_err(|e| ctx(i, e))?);
        }
    } else {
        for (i, s) in seeds.try_iter()?.enumerate() {
            out.push(interner.intern(s?.as_borrowed()).map_err(|e| ctx(i, e))?);
        }
    }
    Ok(())
}

/// One subgraph converted to local integer ids.
struct Converted {
    n_nodes: u32,
    edges: Vec<[u32; 2]>,
    answer: u32,
    seeds: Vec<u32>,
}

impl Converted {
    fn view(&self) -> core::AnswerSubgraph<'_> {
        core::AnswerSubgraph {
            n_nodes: self.n_nodes,
            edges: &self.edges,
            answer: self.answer,
            seeds: &self.seeds,
        }
    }
}

fn convert<'py>(
    py: Python<'py>,
    edges: &Bound<'py, PyAny>,
    answer: &Bound<'py, PyAny>,
    seeds: &Bound<'py, PyAny>,
) -> PyResult<Converted> {
    let mut interner = Interner::new();
    let mut e = Vec::new();
    push_edges(py, edges, &mut interner, &mut e)?;
    let a = interner
        .intern(answer.as_borrowed())
        .map_err(|err| with_context(py, err, "answer"))?;
    let mut s = Vec::new();
    push_seeds(py, seeds, &mut interner, &mut s)?;
    Ok(Converted {
        n_nodes: interner.len(),
        edges: e,
        answer: a,
        seeds: s,
    })
}

#[pyfunction]
#[pyo3(signature = (edges, root, labels=None))]
fn canonical_form<'py>(
    py: Python<'py>,
    edges: &Bound<'py, PyAny>,
    root: &Bound<'py, PyAny>,
    labels: Option<&Bound<'py, PyAny>>,
) -> PyResult<String> {
    let mut interner = Interner::new();
    let mut e = Vec::new();
    push_edges(py, edges, &mut interner, &mut e)?;
    let r = interner
        .intern(root.as_borrowed())
        .map_err(|err| with_context(py, err, "root"))?;
    let n = interner.len() as usize;
    let mut label_strings: Vec<String> = vec![String::new(); n];
    if let Some(labels) = labels {
        let mapping = labels.cast::<pyo3::types::PyMapping>().map_err(|_| {
            PyTypeError::new_err(format!(
                "labels must be a mapping from node to str, got {}",
                type_name(labels)
            ))
        })?;
        for item in mapping.items()?.iter() {
            let (node, label): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
            let before = interner.len();
            let idx = interner.intern(node.as_borrowed())?;
            if idx >= before {
                return Err(input_error(
                    py,
                    format!(
                        "labels: node {} is not in the tree",
                        node.repr()
                            .map(|r| r.to_string())
                            .unwrap_or_else(|_| "?".into())
                    ),
                ));
            }
            let text = label.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "labels: label of a node must be str, got {}",
                    type_name(&label)
                ))
            })?;
            label_strings[idx as usize] = text.to_str()?.to_owned();
        }
    }
    let refs: Vec<&str> = label_strings.iter().map(String::as_str).collect();
    let mut ws = core::Workspace::default();
    core::canonical_form(&mut ws, n as u32, &e, r, labels.map(|_| refs.as_slice())).map_err(|err| {
        match py_class(py, &NOT_A_TREE, "kgbench.iso.errors", "NotATreeError") {
            Ok(cls) => match cls.call1((err.to_string(),)) {
                Ok(v) => PyErr::from_value(v),
                Err(e) => e,
            },
            Err(e) => e,
        }
    })
}

#[pyfunction]
fn isomorphism_type<'py>(
    py: Python<'py>,
    edges: &Bound<'py, PyAny>,
    answer: &Bound<'py, PyAny>,
    seeds: &Bound<'py, PyAny>,
) -> PyResult<String> {
    let c = convert(py, edges, answer, seeds)?;
    let a = core::analyze(&mut core::Workspace::default(), &c.view());
    match a.identifier {
        Some(id) => Ok(id),
        None => Err(invalid_subgraph(py, &a.defects(), None)),
    }
}

#[pyfunction]
fn analyze_answer_subgraph<'py>(
    py: Python<'py>,
    edges: &Bound<'py, PyAny>,
    answer: &Bound<'py, PyAny>,
    seeds: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let c = convert(py, edges, answer, seeds)?;
    let a = core::analyze(&mut core::Workspace::default(), &c.view());
    let d = PyDict::new(py);
    d.set_item("identifier", a.identifier.as_deref())?;
    d.set_item("n_hops", a.n_hops)?;
    d.set_item("n_seeds", a.n_seeds)?;
    d.set_item("n_edges", a.n_edges)?;
    d.set_item("n_nodes", a.n_nodes)?;
    d.set_item("is_tree", a.is_tree)?;
    d.set_item("is_connected", a.is_connected)?;
    d.set_item("has_cycle", a.has_cycle)?;
    d.set_item("hanging_branches", a.hanging_branches)?;
    d.set_item("answer_is_seed", a.answer_is_seed)?;
    d.set_item("internal_seeds", a.internal_seeds)?;
    d.set_item("answer_missing", a.answer_missing)?;
    d.set_item("missing_seeds", a.missing_seeds)?;
    let names: Vec<&str> = a.defects().iter().map(|d| d.name()).collect();
    d.set_item("defects", PyTuple::new(py, names)?)?;
    Ok(d)
}

/// Read item `i` of the batch: a GTSQA record (dict) or an (edges, answer, seeds) triple.
fn push_item<'py>(
    py: Python<'py>,
    item: &Bound<'py, PyAny>,
    keys: &[Bound<'py, PyString>; 3],
    interner: &mut Interner<'py>,
    batch: &mut core::SubgraphBatch,
) -> PyResult<()> {
    interner.clear();
    let fields: [Bound<'py, PyAny>; 3];
    let (edges, answer, seeds) = if let Ok(d) = item.cast::<PyDict>() {
        let mut got: Vec<Bound<'py, PyAny>> = Vec::with_capacity(3);
        for k in keys {
            match d.get_item(k)? {
                Some(v) => got.push(v),
                None => return Err(input_error(py, format!("missing field '{}'", k.to_str()?))),
            }
        }
        let [e, a, s]: [Bound<'py, PyAny>; 3] = got.try_into().expect("three fields");
        fields = [e, a, s];
        (&fields[0], &fields[1], &fields[2])
    } else if let Ok(t) = item.cast::<PyTuple>() {
        if t.len() != 3 {
            return Err(PyTypeError::new_err(format!(
                "expected (edges, answer, seeds) or a GTSQA record, got a tuple of length {}",
                t.len()
            )));
        }
        fields = [t.get_item(0)?, t.get_item(1)?, t.get_item(2)?];
        (&fields[0], &fields[1], &fields[2])
    } else if let Ok(l) = item.cast::<PyList>() {
        if l.len() != 3 {
            return Err(PyTypeError::new_err(format!(
                "expected (edges, answer, seeds) or a GTSQA record, got a list of length {}",
                l.len()
            )));
        }
        fields = [l.get_item(0)?, l.get_item(1)?, l.get_item(2)?];
        (&fields[0], &fields[1], &fields[2])
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected (edges, answer, seeds) or a GTSQA record, got {}",
            type_name(item)
        )));
    };
    let e_before = batch.edges.len();
    let s_before = batch.seeds.len();
    let result = (|| {
        push_edges(py, edges, interner, &mut batch.edges)?;
        let a = interner
            .intern(answer.as_borrowed())
            .map_err(|err| with_context(py, err, "answer"))?;
        push_seeds(py, seeds, interner, &mut batch.seeds)?;
        Ok::<u32, PyErr>(a)
    })();
    match result {
        Ok(a) => {
            batch.answers.push(a);
            batch.n_nodes.push(interner.len());
            batch.edge_offsets.push(batch.edges.len());
            batch.seed_offsets.push(batch.seeds.len());
            Ok(())
        }
        Err(e) => {
            batch.edges.truncate(e_before);
            batch.seeds.truncate(s_before);
            Err(e)
        }
    }
}

// --- Raw fast paths ----------------------------------------------------------
//
// Node ids that are exact `str` or exact `int` (the common case: GTSQA ids such
// as "Q42", or integers) are read through the C API without reference counting
// or creating Python objects. Anything else (subclasses, floats, tuples as ids,
// big ints, dict records in the parallel reader, malformed items) goes through
// the general path above, which has Python dict semantics and reports errors;
// both give the same identifiers (tests/test_iso_fast_paths.py).

/// What the raw readers may assume about the running interpreter (`raw_abi`).
#[derive(Clone, Copy, Debug)]
struct RawAbi {
    /// `PyUnicode_Compare` of two exact `str` objects only reads them, whatever
    /// their state (3.12+, where PEP 623 removed the legacy "not ready" strings;
    /// on 3.10/3.11 it may first convert a legacy string, so it is only used on
    /// strings whose hash is cached, which implies they are ready).
    compare_uncached: bool,
    /// Byte offset of `ob_item[0]` in a tuple (3.14 added a cached hash before it).
    tuple_items: usize,
}

const WORD: usize = std::mem::size_of::<*mut ffi::PyObject>();
/// Byte offset of `ob_size` in a list or tuple (`PyVarObject`), 3.10–3.14.
const VAR_SIZE_OFFSET: usize = 2 * WORD;
/// Byte offset of the `ob_item` array pointer in a list (`PyListObject`), 3.10–3.14.
const LIST_ITEMS_OFFSET: usize = 3 * WORD;

/// Byte offset of the cached hash in a `str` object: `PyASCIIObject.hash`,
/// after `ob_refcnt`, `ob_type` and `length`. The same in the released headers
/// of every GIL build of CPython 3.10 to 3.14 (`-1` when not computed yet).
const STR_HASH_OFFSET: usize =
    2 * std::mem::size_of::<ffi::Py_ssize_t>() + std::mem::size_of::<*mut ffi::PyTypeObject>();

static RAW_ABI: PyOnceLock<Option<RawAbi>> = PyOnceLock::new();

/// `Some` on the CPython versions whose object layout the raw readers were
/// written against (3.10 to 3.14, with the GIL); `None` elsewhere (then only
/// public functions are used and only on the thread holding the GIL).
fn raw_abi(py: Python<'_>) -> Option<RawAbi> {
    *RAW_ABI.get_or_init(py, || {
        let v = py.version_info();
        let minor = (v.major, v.minor);
        if !((3, 10)..=(3, 14)).contains(&minor) {
            return None;
        }
        let gil_enabled = py
            .import("sys")
            .and_then(|sys| match sys.getattr("_is_gil_enabled") {
                Ok(f) => f.call0()?.extract::<bool>(),
                Err(_) => Ok(true),
            })
            .unwrap_or(false);
        if !gil_enabled {
            return None;
        }
        let abi = RawAbi {
            compare_uncached: minor >= (3, 12),
            tuple_items: if minor >= (3, 14) { 4 * WORD } else { 3 * WORD },
        };
        // Check the layout assumptions on real objects; on any surprise, use
        // the public functions on the GIL-holding thread only.
        layout_ok(py, abi).unwrap_or(false).then_some(abi)
    })
}

/// Whether a 5-tuple and a 5-list read through the assumed layout give the
/// same items as the public functions.
fn layout_ok(py: Python<'_>, abi: RawAbi) -> PyResult<bool> {
    let items: Vec<Bound<'_, PyAny>> = (0..5)
        .map(|i| PyString::new(py, &format!("layout-probe-{i}")).into_any())
        .collect();
    let tuple = PyTuple::new(py, &items)?;
    let list = PyList::new(py, &items)?;
    for obj in [tuple.as_any(), list.as_any()] {
        // SAFETY: GIL held; exact tuple/list with 5 items that nothing else can
        // reach; the reads stay inside the objects for the assumed layout,
        // which `raw_seq` uses only when this check passed.
        let ok = unsafe {
            let seq = raw_seq(obj.as_ptr(), Some(abi)).expect("exact tuple or list");
            seq.len == 5
                && (0..5).all(|i| {
                    seq.get(i) == items[i as usize].as_ptr()
                        && raw_item(obj.as_ptr(), seq.is_list, i) == seq.get(i)
                })
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The cached hash of an exact `str` (`-1`: not computed yet).
///
/// # Safety
/// `o` is a live exact `str` and `raw_abi` returned `Some`.
unsafe fn cached_str_hash(o: *mut ffi::PyObject) -> ffi::Py_hash_t {
    unsafe {
        o.cast::<u8>()
            .add(STR_HASH_OFFSET)
            .cast::<ffi::Py_hash_t>()
            .read()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RawKey {
    /// An exact `str` with its hash (`-1` when unknown: only in shared mode).
    Str(ffi::Py_hash_t),
    /// An exact `int` with its value.
    Int(i64),
}

/// Node-id interner of the raw paths: exact `str` and `int` ids only, kept as
/// borrowed pointers (no reference counting). Two ids are the same node when
/// they are the same object, or both `str` with equal text, or both `int` with
/// equal value: exactly what a dict would do for these types.
struct RawInterner {
    ptrs: Vec<*mut ffi::PyObject>,
    keys: Vec<RawKey>,
    abi: Option<RawAbi>,
    /// Other threads read the same objects at the same time: never write to an
    /// object (no `PyObject_Hash`, which caches the hash in the `str`) and call
    /// only functions that cannot fail for the arguments given.
    shared: bool,
}

const RAW_MAX_NODES: usize = 64;

impl RawInterner {
    fn new(abi: Option<RawAbi>, shared: bool) -> Self {
        assert!(
            abi.is_some() || !shared,
            "shared reading needs a known layout"
        );
        RawInterner {
            ptrs: Vec::with_capacity(RAW_MAX_NODES),
            keys: Vec::with_capacity(RAW_MAX_NODES),
            abi,
            shared,
        }
    }

    fn clear(&mut self) {
        self.ptrs.clear();
        self.keys.clear();
    }

    fn len(&self) -> u32 {
        self.ptrs.len() as u32
    }

    /// The local id of `o`, or `None` when `o` is not an exact str/int (or the
    /// comparison cannot be done here): the caller then takes the general path.
    ///
    /// # Safety
    /// `o` is a live object that no thread can modify or free during the call;
    /// if `!self.shared` the GIL is held by the calling thread.
    unsafe fn intern(&mut self, o: *mut ffi::PyObject) -> Option<u32> {
        // The same object: same node, whatever its type (checked when first seen).
        if let Some(i) = self.ptrs.iter().position(|&p| p == o) {
            return Some(i as u32);
        }
        let ty = unsafe { ffi::Py_TYPE(o) };
        let key = if ty == &raw mut ffi::PyUnicode_Type {
            let mut h = match self.abi {
                Some(_) => unsafe { cached_str_hash(o) },
                None => -1,
            };
            if h == -1 && !self.shared {
                h = unsafe { ffi::PyObject_Hash(o) };
                if h == -1 {
                    unsafe { ffi::PyErr_Clear() };
                    return None;
                }
            }
            for (i, &k) in self.keys.iter().enumerate() {
                let RawKey::Str(kh) = k else { continue };
                if h != -1 && kh != -1 {
                    if h != kh {
                        continue;
                    }
                } else if !self.abi.is_some_and(|a| a.compare_uncached) {
                    // Only in shared mode on 3.10/3.11 (see `RawAbi`).
                    return None;
                }
                let kp = self.ptrs[i];
                if self.shared {
                    // Exact str arguments: returns -1/0/1, never fails.
                    if unsafe { ffi::PyUnicode_Compare(kp, o) } == 0 {
                        return Some(i as u32);
                    }
                } else {
                    match unsafe { ffi::PyObject_RichCompareBool(kp, o, ffi::Py_EQ) } {
                        1 => return Some(i as u32),
                        0 => {}
                        _ => {
                            unsafe { ffi::PyErr_Clear() };
                            return None;
                        }
                    }
                }
            }
            RawKey::Str(h)
        } else if ty == &raw mut ffi::PyLong_Type {
            let mut overflow = 0;
            // Exact int: reads the digits, never fails (overflow is reported
            // through `overflow` without setting an exception).
            let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(o, &mut overflow) };
            if overflow != 0 {
                return None;
            }
            let key = RawKey::Int(v);
            if let Some(i) = self.keys.iter().position(|&k| k == key) {
                return Some(i as u32);
            }
            key
        } else {
            return None;
        };
        if self.ptrs.len() >= RAW_MAX_NODES {
            return None;
        }
        self.ptrs.push(o);
        self.keys.push(key);
        Some(self.ptrs.len() as u32 - 1)
    }
}

/// An exact list or tuple being read raw.
#[derive(Clone, Copy)]
struct RawSeq {
    obj: *mut ffi::PyObject,
    /// Its item array read through the known layout; null: use the functions
    /// (`PyList_GetItem`/`PyTuple_GetItem`).
    items: *const *mut ffi::PyObject,
    is_list: bool,
    len: isize,
}

impl RawSeq {
    /// Borrowed item `i`.
    ///
    /// # Safety
    /// `0 <= i < self.len`; the sequence is alive and unmodified since `raw_seq`.
    #[inline]
    unsafe fn get(&self, i: isize) -> *mut ffi::PyObject {
        if self.items.is_null() {
            unsafe { raw_item(self.obj, self.is_list, i) }
        } else {
            unsafe { self.items.offset(i).read() }
        }
    }
}

/// `o` as an exact list or tuple, read through the known layout when `abi` is
/// given (checked by `layout_ok`), else through the public functions.
///
/// # Safety
/// `o` is a live object that no thread can modify during the call.
#[inline]
unsafe fn raw_seq(o: *mut ffi::PyObject, abi: Option<RawAbi>) -> Option<RawSeq> {
    let ty = unsafe { ffi::Py_TYPE(o) };
    let is_list = if ty == &raw mut ffi::PyList_Type {
        true
    } else if ty == &raw mut ffi::PyTuple_Type {
        false
    } else {
        return None;
    };
    let base = o.cast::<u8>();
    Some(match abi {
        Some(abi) => unsafe {
            let len = base.add(VAR_SIZE_OFFSET).cast::<ffi::Py_ssize_t>().read();
            let items = if is_list {
                base.add(LIST_ITEMS_OFFSET)
                    .cast::<*const *mut ffi::PyObject>()
                    .read()
            } else {
                base.add(abi.tuple_items).cast::<*mut ffi::PyObject>()
            };
            RawSeq {
                obj: o,
                items: if len == 0 { std::ptr::null() } else { items },
                is_list,
                len,
            }
        },
        None => RawSeq {
            obj: o,
            items: std::ptr::null(),
            is_list,
            len: unsafe {
                if is_list {
                    ffi::PyList_Size(o)
                } else {
                    ffi::PyTuple_Size(o)
                }
            },
        },
    })
}

/// Borrowed item `i` (no reference counting; cannot fail for these arguments).
///
/// # Safety
/// `o` is a live exact list (`is_list`) or exact tuple with more than `i`
/// items, that no thread can modify during the call.
unsafe fn raw_item(o: *mut ffi::PyObject, is_list: bool, i: isize) -> *mut ffi::PyObject {
    if is_list {
        unsafe { ffi::PyList_GetItem(o, i) }
    } else {
        unsafe { ffi::PyTuple_GetItem(o, i) }
    }
}

/// Fast path for one subgraph whose edges and seeds are exact lists/tuples of
/// exact str/int ids. Returns `None` (with `batch` unchanged) when anything
/// else is met, so the caller takes the general path.
///
/// # Safety
/// `edges`, `answer`, `seeds` are live objects that no thread can modify or
/// free during the call; as for [`RawInterner::intern`].
unsafe fn raw_subgraph(
    edges: *mut ffi::PyObject,
    answer: *mut ffi::PyObject,
    seeds: *mut ffi::PyObject,
    interner: &mut RawInterner,
    batch: &mut core::SubgraphBatch,
) -> Option<()> {
    interner.clear();
    let (e_before, s_before) = (batch.edges.len(), batch.seeds.len());
    let abi = interner.abi;
    let result = (|| unsafe {
        let edges = raw_seq(edges, abi)?;
        for i in 0..edges.len {
            let edge = raw_seq(edges.get(i), abi)?;
            if edge.len != 2 && edge.len != 3 {
                return None;
            }
            let a = interner.intern(edge.get(0))?;
            let b = interner.intern(edge.get(edge.len - 1))?;
            batch.edges.push([a, b]);
        }
        let a = interner.intern(answer)?;
        let seeds = raw_seq(seeds, abi)?;
        for i in 0..seeds.len {
            let s = interner.intern(seeds.get(i))?;
            batch.seeds.push(s);
        }
        Some(a)
    })();
    match result {
        Some(a) => {
            batch.answers.push(a);
            batch.n_nodes.push(interner.len());
            batch.edge_offsets.push(batch.edges.len());
            batch.seed_offsets.push(batch.seeds.len());
            Some(())
        }
        None => {
            batch.edges.truncate(e_before);
            batch.seeds.truncate(s_before);
            None
        }
    }
}

/// Fast path for one batch item on the thread holding the GIL: an exact
/// 3-tuple/list `(edges, answer, seeds)` or a dict record (fields looked up
/// safely, then read raw).
fn fast_item(
    item: &Bound<'_, PyAny>,
    keys: &[Bound<'_, PyString>; 3],
    interner: &mut RawInterner,
    batch: &mut core::SubgraphBatch,
) -> Option<()> {
    debug_assert!(!interner.shared);
    let ptr = item.as_ptr();
    // SAFETY: `item` is alive (owned by the caller), the GIL is held, and
    // `raw_subgraph` runs no Python code, so nothing can change meanwhile.
    unsafe {
        if let Some(f) = raw_seq(ptr, interner.abi) {
            if f.len == 3 {
                return raw_subgraph(f.get(0), f.get(1), f.get(2), interner, batch);
            }
        }
    }
    let d = item.cast_exact::<PyDict>().ok()?;
    let e = d.get_item(&keys[0]).ok()??;
    let a = d.get_item(&keys[1]).ok()??;
    let s = d.get_item(&keys[2]).ok()??;
    // SAFETY: `e`, `a`, `s` are owned here; see above.
    unsafe { raw_subgraph(e.as_ptr(), a.as_ptr(), s.as_ptr(), interner, batch) }
}

/// Items read per pipeline chunk: while the GIL-holding thread reads chunk
/// `c + 1` from Python, a worker thread identifies chunk `c` (rayon).
const PIPELINE_CHUNK: usize = 16_384;

fn new_batch(capacity: usize) -> core::SubgraphBatch {
    let mut b = core::SubgraphBatch::new();
    b.answers.reserve(capacity);
    b.n_nodes.reserve(capacity);
    b.edge_offsets.reserve(capacity + 1);
    b.seed_offsets.reserve(capacity + 1);
    b.edges.reserve(4 * capacity);
    b.seeds.reserve(2 * capacity);
    b
}

/// Which reader `isomorphism_types` uses (the non-default ones exist so that
/// the tests can check that all give the same results).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ReadPath {
    /// Parallel raw reader when possible, else `Pipeline`.
    Auto,
    /// The GIL-holding thread reads (raw fast path, else general) while a
    /// worker identifies the chunks already read.
    Pipeline,
    /// Like `Pipeline` but every item through the general path.
    General,
}

/// The GTSQA record fields of an answer subgraph, as interned strings:
/// `answer_subgraph`, `answer_node`, `seed_entities`.
fn record_keys(py: Python<'_>) -> [Bound<'_, PyString>; 3] {
    [
        PyString::intern(py, "answer_subgraph"),
        PyString::intern(py, "answer_node"),
        PyString::intern(py, "seed_entities"),
    ]
}

/// Read `items` into chunks and hand them to `sink`; `index_of(k)` is the
/// position (for error messages) of the `k`-th item.
fn read_items<'py>(
    py: Python<'py>,
    items: impl Iterator<Item = PyResult<Bound<'py, PyAny>>>,
    index_of: &dyn Fn(usize) -> usize,
    raw_enabled: bool,
    mut sink: impl FnMut(core::SubgraphBatch),
) -> PyResult<usize> {
    let keys = record_keys(py);
    let mut interner = Interner::new();
    let mut raw = RawInterner::new(raw_abi(py), false);
    let mut batch = new_batch(PIPELINE_CHUNK);
    let mut n = 0usize;
    for item in items {
        let item = item.map_err(|e| with_context(py, e, &format!("subgraph {}", index_of(n))))?;
        if !raw_enabled || fast_item(&item, &keys, &mut raw, &mut batch).is_none() {
            push_item(py, &item, &keys, &mut interner, &mut batch)
                .map_err(|e| with_context(py, e, &format!("subgraph {}", index_of(n))))?;
        }
        n += 1;
        if batch.len() == PIPELINE_CHUNK {
            sink(std::mem::replace(&mut batch, new_batch(PIPELINE_CHUNK)));
        }
    }
    if !batch.is_empty() {
        sink(batch);
    }
    Ok(n)
}

/// Identifiers of `items` (`len` of them) read on this thread, identified on a
/// worker thread (pipelined) when there are more than one chunk.
fn classify_pipelined<'py>(
    py: Python<'py>,
    items: impl Iterator<Item = PyResult<Bound<'py, PyAny>>>,
    len: usize,
    index_of: &dyn Fn(usize) -> usize,
    raw_enabled: bool,
) -> PyResult<core::TypeIds> {
    if len <= PIPELINE_CHUNK {
        let mut chunks = Vec::with_capacity(1);
        read_items(py, items, index_of, raw_enabled, |b| chunks.push(b))?;
        let mut builder = core::TypeIdsBuilder::default();
        for b in chunks {
            builder.push(py.detach(|| core::isomorphism_type_ids(&b)));
        }
        return Ok(builder.finish());
    }
    let (tx, rx) = std::sync::mpsc::sync_channel::<core::SubgraphBatch>(4);
    std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            let mut acc = core::TypeIdsBuilder::default();
            for b in rx {
                acc.push(core::isomorphism_type_ids(&b));
            }
            acc.finish()
        });
        let read = read_items(py, items, index_of, raw_enabled, |b| {
            // The worker only stops early by panicking; join reports it.
            let _ = tx.send(b);
        });
        drop(tx);
        let joined = py.detach(|| worker.join());
        read?;
        joined.map_err(|_| pyo3::exceptions::PyRuntimeError::new_err("worker thread panicked"))
    })
}

/// Items per chunk of the parallel raw reader (a chunk is read and identified
/// by one thread, its data still in cache).
const PAR_CHUNK: usize = 4096;

/// The input sequence, shared with the worker threads of `read_parallel`.
#[derive(Clone, Copy)]
struct SharedSeq(*mut ffi::PyObject);

// SAFETY: the pointer is only dereferenced (read-only) while the thread that
// created it holds the GIL and runs no Python code; see `read_parallel`.
unsafe impl Send for SharedSeq {}
unsafe impl Sync for SharedSeq {}

impl SharedSeq {
    /// The pointer (a method, so that closures capture the whole `SharedSeq`).
    fn ptr(&self) -> *mut ffi::PyObject {
        self.0
    }
}

/// Read and identify items `range` of the exact list/tuple `seq` with the raw
/// reader; items it cannot read get a placeholder and are listed in the
/// returned fallback positions.
///
/// # Safety
/// `seq` is a live exact list or tuple with at least `range.end`
/// items; neither it nor anything reachable from it can be modified or freed
/// during the call (see `read_parallel`); `interner` as for `RawInterner::intern`.
unsafe fn read_chunk(
    seq: *mut ffi::PyObject,
    range: std::ops::Range<usize>,
    interner: &mut RawInterner,
) -> (core::TypeIds, Vec<usize>) {
    let mut batch = new_batch(range.len());
    let mut fallback = Vec::new();
    let abi = interner.abi;
    // SAFETY (all blocks below): as for this function; indices are checked
    // against `range` and the lengths read.
    let seq = unsafe { raw_seq(seq, abi) }.expect("exact list or tuple");
    let item_at = |i: usize| unsafe { seq.get(i as isize) };
    for i in range.clone() {
        // Software pipelining of the cache misses: the objects of item
        // `i + k * PREFETCH_STEP` are requested `k` levels deep, so that item
        // `i`'s objects are in cache when it is read.
        for level in 0..PREFETCH_LEVELS {
            let j = i + (PREFETCH_LEVELS - level) * PREFETCH_STEP;
            if j < range.end {
                unsafe { prefetch_item(item_at(j), level, abi) };
            }
        }
        let read = unsafe {
            match raw_seq(item_at(i), abi) {
                Some(f) if f.len == 3 => {
                    raw_subgraph(f.get(0), f.get(1), f.get(2), interner, &mut batch)
                }
                _ => None,
            }
        };
        if read.is_none() {
            fallback.push(i);
            // A one-node graph without seeds: identified as invalid, replaced later.
            batch.n_nodes.push(1);
            batch.answers.push(0);
            batch.edge_offsets.push(batch.edges.len());
            batch.seed_offsets.push(batch.seeds.len());
        }
    }
    (core::isomorphism_type_ids_local(&batch), fallback)
}

/// Levels of objects below a batch item prefetched ahead of reading it (the
/// item; its fields; the edge and seed lists' arrays; edges and seeds; node ids
/// of edges) and the distance, in items, between levels.
const PREFETCH_LEVELS: usize = 5;
const PREFETCH_STEP: usize = 2;

#[inline(always)]
fn prefetch(p: *const ffi::PyObject) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Prefetch a node id: its type and, for a `str`, its cached hash, which may
/// lie in the next cache line (pymalloc blocks start 48 bytes into a pool).
#[inline(always)]
fn prefetch_node(p: *const ffi::PyObject) {
    prefetch(p);
    prefetch(
        p.cast::<u8>()
            .wrapping_add(STR_HASH_OFFSET + WORD - 1)
            .cast(),
    );
}

/// Request the objects `level` steps below batch item `item` into the cache
/// (walking down through objects requested earlier). Reads only, through the
/// checked layout, and only below exact lists/tuples of the expected shapes.
///
/// # Safety
/// As for `read_chunk`: `item` is live and nothing can be modified meanwhile.
#[inline]
unsafe fn prefetch_item(item: *mut ffi::PyObject, level: usize, abi: Option<RawAbi>) {
    const MAX_FANOUT: isize = 8;
    if level == 0 {
        prefetch(item);
        return;
    }
    let Some(f) = (unsafe { raw_seq(item, abi) }) else {
        return;
    };
    if f.len != 3 {
        return;
    }
    let (edges, answer, seeds) = unsafe { (f.get(0), f.get(1), f.get(2)) };
    if level == 1 {
        prefetch(edges);
        prefetch_node(answer);
        prefetch(seeds);
        return;
    }
    for (k, list) in [edges, seeds].into_iter().enumerate() {
        let Some(l) = (unsafe { raw_seq(list, abi) }) else {
            continue;
        };
        if level == 2 {
            if !l.items.is_null() {
                prefetch(l.items.cast());
            }
            continue;
        }
        for i in 0..l.len.min(MAX_FANOUT) {
            let x = unsafe { l.get(i) };
            if level == 3 || k == 1 {
                if level == 3 {
                    if k == 0 {
                        prefetch(x);
                    } else {
                        prefetch_node(x);
                    }
                }
                continue;
            }
            // level 4: the node ids of an edge.
            if let Some(e) = unsafe { raw_seq(x, abi) } {
                if e.len == 2 || e.len == 3 {
                    unsafe {
                        prefetch_node(e.get(0));
                        prefetch_node(e.get(e.len - 1));
                    }
                }
            }
        }
    }
}

/// Read and identify all items of the exact list/tuple `seq` on `threads`
/// threads (this one included), with the raw reader. Returns the identifiers
/// (placeholders at the fallback positions) and the positions, ascending, of
/// the items the raw reader could not read.
///
/// Soundness of reading Python objects from threads that do not hold the GIL:
/// - This thread holds the GIL for the whole call (it is not released: no
///   `detach`) and runs no Python code, and it allocates and frees no Python
///   object (so neither the cyclic GC nor a finalizer can run). In a GIL build
///   (`raw_abi` checks it) any other thread needs the GIL to run Python code or
///   to touch these objects, so nothing reachable from `seq` is modified,
///   resized or freed until this function returns; the worker threads are
///   joined before it returns (scoped threads). Objects of this interpreter are
///   not used by other interpreters, except immortal ones whose fields read
///   here never change.
/// - The workers only read: object types (`ob_type`), sizes and items of exact
///   lists and tuples with checked bounds (`PyList_Size`/`PyList_GetItem`,
///   `PyTuple_*`, which cannot fail for those arguments), the cached hash of
///   exact `str` objects (a field read, see `STR_HASH_OFFSET`), `str` equality
///   by `PyUnicode_Compare` (a pure read for exact str, see `RawAbi`), and the
///   value of exact `int` objects (`PyLong_AsLongLongAndOverflow`, a pure read
///   for exact int). None of these touches reference counts, allocates, raises
///   or needs a thread state; no thread writes to any of these objects meanwhile
///   (this thread uses the same read-only mode while the workers run), so the
///   reads are not data races.
/// - Anything else (subclasses, other id types, dicts, odd shapes) is left to
///   the caller's general path, which runs after the workers have finished.
fn read_parallel(
    _gil: Python<'_>,
    seq: &Bound<'_, PyAny>,
    n: usize,
    abi: RawAbi,
    threads: usize,
) -> (core::TypeIdsBuilder, Vec<usize>) {
    let n_chunks = n.div_ceil(PAR_CHUNK);
    let threads = threads.clamp(1, n_chunks.max(1));
    let shared = threads > 1;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let seq_ptr = SharedSeq(seq.as_ptr());
    let work = || {
        let mut interner = RawInterner::new(Some(abi), shared);
        let mut done = Vec::new();
        loop {
            let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if c >= n_chunks {
                break;
            }
            let range = c * PAR_CHUNK..((c + 1) * PAR_CHUNK).min(n);
            // SAFETY: see the function's documentation; `range.end <= n`.
            let r = unsafe { read_chunk(seq_ptr.ptr(), range, &mut interner) };
            done.push((c, r));
        }
        done
    };
    let mut chunks = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut all = work();
        for h in handles {
            match h.join() {
                Ok(part) => all.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    chunks.sort_unstable_by_key(|(c, _)| *c);
    let mut builder = core::TypeIdsBuilder::default();
    let mut fallback = Vec::new();
    for (_, (ids, fb)) in chunks {
        builder.push(ids);
        fallback.extend(fb);
    }
    (builder, fallback)
}

#[pyfunction]
#[pyo3(signature = (subgraphs, strict=false, *, path="auto", threads=None))]
fn isomorphism_types<'py>(
    py: Python<'py>,
    subgraphs: &Bound<'py, PyAny>,
    strict: bool,
    path: &str,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let path = match path {
        "auto" => ReadPath::Auto,
        "pipeline" => ReadPath::Pipeline,
        "general" => ReadPath::General,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "path must be 'auto', 'pipeline' or 'general', not {other:?}"
            )))
        }
    };
    let exact_sequence =
        subgraphs.is_exact_instance_of::<PyList>() || subgraphs.is_exact_instance_of::<PyTuple>();
    let abi = raw_abi(py);
    let ids = match (path, abi) {
        (ReadPath::Auto, Some(abi)) if exact_sequence => {
            let n = subgraphs.len()?;
            let threads = threads.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, |p| p.get().min(16))
            });
            let (mut builder, fallback) = read_parallel(py, subgraphs, n, abi, threads);
            if !fallback.is_empty() {
                let items = fallback.iter().map(|&i| subgraphs.get_item(i));
                let index_of = |k: usize| fallback[k];
                let sub = classify_pipelined(py, items, fallback.len(), &index_of, true)?;
                builder.patch(&fallback, sub);
            }
            builder.finish()
        }
        _ => {
            let raw_enabled = path != ReadPath::General;
            let len = subgraphs.len().unwrap_or(usize::MAX);
            if let Ok(list) = subgraphs.cast::<PyList>() {
                classify_pipelined(py, list.iter().map(Ok), len, &|k| k, raw_enabled)?
            } else {
                let iter = subgraphs.try_iter()?;
                classify_pipelined(py, iter, len, &|k| k, raw_enabled)?
            }
        }
    };
    if strict {
        if let Some(i) = ids.ids.iter().position(|&id| id == core::TypeIds::INVALID) {
            // Re-read that one item for its defects.
            let Ok(item) = subgraphs.get_item(i) else {
                return Err(invalid_subgraph(py, &[], Some(i)));
            };
            let mut b = core::SubgraphBatch::new();
            let keys = record_keys(py);
            push_item(py, &item, &keys, &mut Interner::new(), &mut b)?;
            let a = core::analyze(&mut core::Workspace::default(), &b.get(0));
            return Err(invalid_subgraph(py, &a.defects(), Some(i)));
        }
    }
    let types: Vec<Bound<'py, PyAny>> = ids
        .types
        .iter()
        .map(|t| PyString::new(py, t).into_any())
        .collect();
    let none = py.None().into_bound(py);
    PyList::new(
        py,
        ids.ids.iter().map(|&id| {
            if id == core::TypeIds::INVALID {
                none.clone()
            } else {
                types[id as usize].clone()
            }
        }),
    )
}

/// Whether `isomorphism_types` may use its threaded raw reader on this
/// interpreter (CPython 3.10 to 3.14 with the GIL; see `raw_abi`).
#[pyfunction]
fn raw_reader_available(py: Python<'_>) -> bool {
    raw_abi(py).is_some()
}

fn identifier_error(py: Python<'_>, err: &core::IdentifierError) -> PyErr {
    match py_class(
        py,
        &INVALID_IDENTIFIER,
        "kgbench.iso.errors",
        "InvalidIsomorphismType",
    ) {
        Ok(cls) => match cls.call1((err.to_string(), err.identifier.as_str(), err.offset)) {
            Ok(v) => PyErr::from_value(v),
            Err(e) => e,
        },
        Err(e) => e,
    }
}

/// `(edges as (parent, child) pairs, answer, seeds)`.
type ParsedTree = (Vec<(u32, u32)>, u32, Vec<u32>);

#[pyfunction]
fn parse_isomorphism_type(py: Python<'_>, identifier: &str) -> PyResult<ParsedTree> {
    let p = core::parse_identifier(identifier).map_err(|e| identifier_error(py, &e))?;
    Ok((
        p.edges.iter().map(|&[a, b]| (a, b)).collect(),
        p.answer,
        p.seeds,
    ))
}

#[pyfunction]
fn canonical_isomorphism_type(py: Python<'_>, identifier: &str) -> PyResult<String> {
    core::canonical_identifier(identifier).map_err(|e| identifier_error(py, &e))
}

#[pyfunction]
fn grailqa_name(identifier: &str) -> Option<&'static str> {
    core::grailqa_name(identifier)
}

/// Parse and classify a GTSQA JSONL file (plain or gzip) without the GIL.
/// Returns a dict: `types` (list, one `str | None` per record), `counts`
/// (identifier -> count), `invalid` (list of `(index, line, defects)`),
/// `given` (`(identical, reordered, different)`), `records`, `lines`.
#[pyfunction]
fn classify_gtsqa_jsonl<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
) -> PyResult<Bound<'py, PyDict>> {
    let r = crate::interrupt::detach_interruptible(py, move || core::classify_jsonl(&path))?
        .map_err(|e| input_error(py, e.to_string()))?;
    let types: Vec<Bound<'py, PyAny>> = r
        .types
        .types
        .iter()
        .map(|t| PyString::new(py, t).into_any())
        .collect();
    let mut counts = vec![0usize; types.len()];
    for &id in &r.types.ids {
        if id != core::TypeIds::INVALID {
            counts[id as usize] += 1;
        }
    }
    let none = py.None().into_bound(py);
    let list = PyList::new(
        py,
        r.types.ids.iter().map(|&id| {
            if id == core::TypeIds::INVALID {
                none.clone()
            } else {
                types[id as usize].clone()
            }
        }),
    )?;
    let count_dict = PyDict::new(py);
    for (t, c) in types.iter().zip(counts) {
        count_dict.set_item(t, c)?;
    }
    let invalid = PyList::empty(py);
    for rec in &r.invalid {
        let names: Vec<&str> = rec.defects.iter().map(|d| d.name()).collect();
        invalid.append((rec.index, rec.line, PyTuple::new(py, names)?))?;
    }
    let d = PyDict::new(py);
    d.set_item("records", r.types.ids.len())?;
    d.set_item("types", list)?;
    d.set_item("counts", count_dict)?;
    d.set_item("invalid", invalid)?;
    d.set_item(
        "given",
        (r.given.identical, r.given.reordered, r.given.different),
    )?;
    d.set_item("lines", r.lines)?;
    Ok(d)
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = parent.py();
    let m = PyModule::new(py, "iso")?;
    m.add_function(wrap_pyfunction!(canonical_form, &m)?)?;
    m.add_function(wrap_pyfunction!(isomorphism_type, &m)?)?;
    m.add_function(wrap_pyfunction!(analyze_answer_subgraph, &m)?)?;
    m.add_function(wrap_pyfunction!(isomorphism_types, &m)?)?;
    m.add_function(wrap_pyfunction!(raw_reader_available, &m)?)?;
    m.add_function(wrap_pyfunction!(parse_isomorphism_type, &m)?)?;
    m.add_function(wrap_pyfunction!(canonical_isomorphism_type, &m)?)?;
    m.add_function(wrap_pyfunction!(grailqa_name, &m)?)?;
    m.add_function(wrap_pyfunction!(classify_gtsqa_jsonl, &m)?)?;
    let names = PyDict::new(py);
    for (id, name) in core::GRAILQA_NAMES {
        names.set_item(id, name)?;
    }
    m.add("GRAILQA_NAMES", names)?;
    m.add("TABLE5_IDENTIFIERS", core::TABLE5_IDENTIFIERS.to_vec())?;
    let defects: Vec<(&str, &str)> = core::Defect::ALL
        .iter()
        .map(|d| (d.name(), d.description()))
        .collect();
    m.add("DEFECTS", PyTuple::new(py, defects)?)?;
    crate::add_submodule(parent, &m)
}
