/* fpref._fpref, golden files: gen (a suite's files), suite_jobs,
 * golden_folder (the MANIFEST check), verify and golden_info.  The calls
 * on files and folders of golden/'s layer, none on arrays of patterns
 * except verify's results. */
#include "_fpref.h"

/* ---- golden files ---- */

/* gen(suite_path, out_dir, index, count, threads, npy) -> dict of the
 * run (fpref_golden_generate, then fpref_golden_write_manifest), GIL
 * released. */
PyObject *py_gen(PyObject *self, PyObject *args)
{
	(void)self;
	const char *suite_path, *dir;
	unsigned index, count, threads;
	int npy;
	if (!PyArg_ParseTuple(args, "ssIIIp", &suite_path, &dir, &index, &count, &threads, &npy))
		return NULL;
	struct fpref_golden_suite s;
	char err[2048];
	if (fpref_golden_suite_read(suite_path, &s, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "gen: %s", err);
		return NULL;
	}
	s.npy = s.npy || npy;
	struct fpref_golden_progress done;
	memset(&done, 0, sizeof done);
	int rc;
	Py_BEGIN_ALLOW_THREADS
	rc = fpref_golden_generate(&s, dir, index, count, threads, NULL, NULL, &done, err, sizeof err);
	if (rc == 0 && fpref_golden_write_manifest(&s, dir, index, count, err, sizeof err) != 0)
		rc = -1;
	Py_END_ALLOW_THREADS
	PyObject *result = NULL;
	if (rc == -2)
		PyErr_SetString(PyExc_KeyboardInterrupt, "gen: stopped by a signal (finished files stay)");
	else if (rc != 0)
		PyErr_Format(PyExc_RuntimeError, "gen: %s", err);
	else
		result = Py_BuildValue("{s:s,s:n,s:n,s:n,s:K}", "suite", s.name, "files", (Py_ssize_t)done.files,
				       "skipped", (Py_ssize_t)done.skipped, "arrays_added", (Py_ssize_t)done.arrays_added,
				       "vectors", (unsigned long long)done.vectors);
	fpref_golden_suite_free(&s);
	return result;
}

static int append_string(PyObject *list, const char *text)
{
	PyObject *p = PyUnicode_FromString(text);
	int r = p ? PyList_Append(list, p) : -1;
	Py_XDECREF(p);
	return r;
}

/* suite_jobs(suite_path) -> [path of every job's file]. */
PyObject *py_suite_jobs(PyObject *self, PyObject *args)
{
	(void)self;
	const char *suite_path;
	if (!PyArg_ParseTuple(args, "s", &suite_path))
		return NULL;
	struct fpref_golden_suite s;
	char err[2048];
	if (fpref_golden_suite_read(suite_path, &s, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "gen: %s", err);
		return NULL;
	}
	PyObject *list = PyList_New(0);
	for (size_t k = 0; list && k < s.njobs; k++)
		if (append_string(list, s.jobs[k].path) != 0)
			Py_CLEAR(list);
	fpref_golden_suite_free(&s);
	return list;
}

/* golden_folder(dir) -> (manifest: "ok"|"none", listed, [relative paths]);
 * ValueError naming the first missing, changed or extra file. */
PyObject *py_golden_folder(PyObject *self, PyObject *args)
{
	(void)self;
	const char *dir;
	if (!PyArg_ParseTuple(args, "s", &dir))
		return NULL;
	char err[2048] = "";
	size_t listed = 0;
	int m = fpref_golden_manifest_check(dir, &listed, err, sizeof err);
	if (m < 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		return NULL;
	}
	struct fpref_golden_list l;
	memset(&l, 0, sizeof l);
	if (fpref_golden_list_files(dir, &l) != 0) {
		fpref_golden_list_free(&l);
		PyErr_Format(PyExc_ValueError, "verify: %s: unreadable", dir);
		return NULL;
	}
	PyObject *paths = PyList_New(0);
	for (size_t i = 0; paths && i < l.n; i++)
		if (append_string(paths, l.paths[i]) != 0)
			Py_CLEAR(paths);
	fpref_golden_list_free(&l);
	return paths ? Py_BuildValue("(snN)", m == 1 ? "none" : "ok", (Py_ssize_t)listed, paths) : NULL;
}

/* The diagnosis (fpref_golden_diagnose) as the CLI's --json gives it:
 * "diagnosis", a list of {mutant, explains, mismatches, contradicts,
 * exact} best first, and "diagnosis_cover", {mutant, adds, contradicts}
 * for each bug of the greedy cover; added to the report dict d. */
static int put_diagnosis(PyObject *d, const struct fpref_diagnosis_report *rep)
{
	PyObject *rows = PyList_New(0), *cover = PyList_New(0);
	for (size_t i = 0; rows && i < rep->nrows; i++) {
		const struct fpref_diagnosis *r = &rep->rows[i];
		PyObject *t = Py_BuildValue("{s:s,s:n,s:n,s:n,s:O}", "mutant", r->mutant->name, "explains",
					    (Py_ssize_t)r->explains, "mismatches", (Py_ssize_t)r->mismatches, "contradicts",
					    (Py_ssize_t)r->contradicts, "exact",
					    fpref_golden_diagnosis_exact(r) ? Py_True : Py_False);
		if (!t || PyList_Append(rows, t) != 0)
			Py_CLEAR(rows);
		Py_XDECREF(t);
	}
	for (size_t i = 0; cover && i < rep->ncover; i++) {
		const struct fpref_diagnosis *r = &rep->cover[i];
		PyObject *t = Py_BuildValue("{s:s,s:n,s:n}", "mutant", r->mutant->name, "adds", (Py_ssize_t)r->explains,
					    "contradicts", (Py_ssize_t)r->contradicts);
		if (!t || PyList_Append(cover, t) != 0)
			Py_CLEAR(cover);
		Py_XDECREF(t);
	}
	int status = rows && cover && PyDict_SetItemString(d, "diagnosis", rows) == 0 &&
				     PyDict_SetItemString(d, "diagnosis_cover", cover) == 0
			     ? 0
			     : -1;
	Py_XDECREF(rows);
	Py_XDECREF(cover);
	return status;
}

/* verify(golden, results_path|None, results_bits|None, results_flags|None,
 * tolerance_ulps, tolerance_rel, show[, diagnose_threads]) -> dict of
 * fpref_golden_verify's report, with the diagnosis when diagnose_threads
 * is not 0 (fpref verify --diagnose --threads N).  Results: a file
 * (fpref_golden_results_read), an array of one pattern per golden line
 * (uint64; flags int32, -1 where none), or None (the oracle afresh). */
PyObject *py_verify(PyObject *self, PyObject *args)
{
	(void)self;
	const char *golden, *results_path;
	PyObject *bits_obj, *flags_obj;
	double tol_ulps, tol_rel;
	Py_ssize_t show;
	unsigned diagnose_threads = 0;
	if (!PyArg_ParseTuple(args, "szOOddn|I", &golden, &results_path, &bits_obj, &flags_obj, &tol_ulps, &tol_rel, &show,
			      &diagnose_threads))
		return NULL;
	char err[2048];
	struct fpref_golden_file g;
	struct fpref_golden_job j;
	struct fpref_golden_results res;
	struct fpref_verify_report rep;
	memset(&res, 0, sizeof res);
	memset(&rep, 0, sizeof rep);
	Py_buffer bits = { 0 }, flags = { 0 };
	bool have_bits = false, have_flags = false, have_res = false, have_rep = false;
	PyObject *result = NULL;
	if (fpref_golden_read(golden, &g, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		return NULL;
	}
	if (fpref_golden_job_of(&g, &j, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s: %s", golden, err);
		goto done;
	}
	int rc;
	if (bits_obj != Py_None) {
		if (PyObject_GetBuffer(bits_obj, &bits, PyBUF_SIMPLE) != 0)
			goto done;
		have_bits = true;
		if (flags_obj != Py_None) {
			if (PyObject_GetBuffer(flags_obj, &flags, PyBUF_SIMPLE) != 0)
				goto done;
			have_flags = true;
		}
		if ((size_t)bits.len != g.nlines * 8 || (have_flags && (size_t)flags.len != g.nlines * sizeof(int))) {
			PyErr_Format(PyExc_ValueError, "verify: %s has %zu vectors; the results must have one each", golden,
				     g.nlines);
			goto done;
		}
		res.n = g.nlines;
		res.bits = malloc((g.nlines ? g.nlines : 1) * sizeof *res.bits);
		res.flags = malloc((g.nlines ? g.nlines : 1) * sizeof *res.flags);
		have_res = true;
		if (!res.bits || !res.flags) {
			PyErr_NoMemory();
			goto done;
		}
		memcpy(res.bits, bits.buf, g.nlines * 8);
		for (size_t i = 0; i < g.nlines; i++)
			res.flags[i] = have_flags ? ((const int *)flags.buf)[i] : -1;
		rc = 0;
	} else {
		Py_BEGIN_ALLOW_THREADS
		rc = results_path ? fpref_golden_results_read(results_path, &g, &j, &res, err, sizeof err)
				  : fpref_golden_results_oracle(&g, &j, &res, err, sizeof err);
		Py_END_ALLOW_THREADS
		have_res = rc == 0;
	}
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		goto done;
	}
	struct fpref_verify_options o = { tol_ulps, tol_rel, (size_t)show };
	Py_BEGIN_ALLOW_THREADS
	rc = fpref_golden_verify(&g, &j, &res, &o, &rep, err, sizeof err);
	Py_END_ALLOW_THREADS
	if (rc != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		goto done;
	}
	have_rep = true;
	struct fpref_diagnosis_report diag = { 0 };
	bool have_diag = false;
	if (diagnose_threads) {
		Py_BEGIN_ALLOW_THREADS
		rc = fpref_golden_diagnose(&g, &j, &res, diagnose_threads, &diag, err, sizeof err);
		Py_END_ALLOW_THREADS
		if (rc != 0) {
			PyErr_Format(PyExc_ValueError, "verify: %s", err);
			goto done;
		}
		have_diag = true;
	}
	PyObject *kinds = PyDict_New(), *shown = PyList_New(0);
	for (int k = 0; kinds && k < FPREF_MISMATCH_COUNT; k++) {
		if (!rep.by_kind[k])
			continue;
		PyObject *v = PyLong_FromSize_t(rep.by_kind[k]);
		if (!v || PyDict_SetItemString(kinds, fpref_golden_mismatch_name((enum fpref_mismatch)k), v) != 0)
			Py_CLEAR(kinds);
		Py_XDECREF(v);
	}
	for (size_t i = 0; shown && i < rep.nshown; i++) {
		const struct fpref_verify_case *c = &rep.shown[i];
		PyObject *t = Py_BuildValue("{s:n,s:s,s:K,s:K,s:i,s:i,s:d,s:s}", "line", (Py_ssize_t)c->line, "kind",
					    fpref_golden_mismatch_name(c->kind), "golden", (unsigned long long)c->golden, "got",
					    (unsigned long long)c->got, "golden_flags", c->golden_flags, "got_flags",
					    c->got_flags, "ulps", c->ulps, "inputs", c->inputs);
		if (!t || PyList_Append(shown, t) != 0)
			Py_CLEAR(shown);
		Py_XDECREF(t);
	}
	if (kinds && shown)
		result = Py_BuildValue(
			"{s:s,s:s,s:s,s:n,s:n,s:n,s:n,s:O,s:n,s:n,s:n,s:n,s:d,s:d,s:d,s:d,s:d,s:n,s:n,s:n,s:O}", "op", g.op,
			"formats", g.formats, "output", j.out.name, "cases", (Py_ssize_t)rep.cases, "exact",
			(Py_ssize_t)rep.exact, "within", (Py_ssize_t)rep.within, "outside", (Py_ssize_t)rep.outside,
			"mismatches", kinds, "measured_exact", (Py_ssize_t)rep.measured_exact, "saturated",
			(Py_ssize_t)rep.saturated, "zero_golden", (Py_ssize_t)rep.zero_golden, "nonfinite",
			(Py_ssize_t)rep.nonfinite, "max_ulps_golden", rep.max_ulps_golden, "max_rel_golden",
			rep.max_rel_golden, "max_ulps_exact", rep.max_ulps_exact, "max_rel_exact", rep.max_rel_exact,
			"mean_ulps_exact", rep.measured_exact ? rep.sum_ulps_exact / (double)rep.measured_exact : 0.0,
			"with_flags", (Py_ssize_t)rep.with_flags, "with_bound", (Py_ssize_t)rep.with_bound, "above_bound",
			(Py_ssize_t)rep.above_bound, "shown", shown);
	Py_XDECREF(kinds);
	Py_XDECREF(shown);
	if (result && have_diag && put_diagnosis(result, &diag) != 0)
		Py_CLEAR(result);
	/* fpref verify's words (golden/verify_text.c), for str(); results as
	 * the command names them, an array as "array" */
	char *text_buf = NULL, headline[256] = "";
	size_t text_len = 0;
	FILE *mem = result ? open_memstream(&text_buf, &text_len) : NULL;
	if (mem) {
		fpref_golden_verify_print(mem, golden, &g, &j.out, have_bits ? "array" : results_path, &rep, &o,
					  have_diag ? &diag : NULL);
		fclose(mem);
	}
	if (have_diag)
		fpref_golden_diagnosis_headline(&diag, headline, sizeof headline);
	PyObject *text = !result ? NULL : text_buf ? PyUnicode_FromStringAndSize(text_buf, (Py_ssize_t)text_len) : PyErr_NoMemory();
	PyObject *head = text ? PyUnicode_FromString(headline) : NULL;
	if (!head || PyDict_SetItemString(result, "text", text) != 0 || PyDict_SetItemString(result, "headline", head) != 0)
		Py_CLEAR(result);
	Py_XDECREF(text);
	Py_XDECREF(head);
	free(text_buf);
	if (have_diag)
		fpref_golden_diagnosis_free(&diag);
done:
	if (have_rep)
		fpref_golden_verify_report_free(&rep);
	if (have_res)
		fpref_golden_results_free(&res);
	if (have_bits)
		PyBuffer_Release(&bits);
	if (have_flags)
		PyBuffer_Release(&flags);
	fpref_golden_file_free(&g);
	return result;
}

/* verify_folder_text(golden, manifest_ok, problems, files, vectors,
 * outside, failed_files, bad_files, pass) -> str: what fpref verify prints
 * for a folder (problems: (path, cases, outside, headline) of each file
 * outside the tolerance). */
PyObject *py_verify_folder_text(PyObject *self, PyObject *args)
{
	(void)self;
	const char *golden;
	int manifest_ok, pass;
	PyObject *problems;
	Py_ssize_t files, vectors, outside, failed, bad;
	if (!PyArg_ParseTuple(args, "spO!nnnnnp", &golden, &manifest_ok, &PyList_Type, &problems, &files, &vectors,
			      &outside, &failed, &bad, &pass))
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return PyErr_NoMemory();
	if (!manifest_ok)
		fpref_golden_verify_no_manifest_print(mem, golden);
	for (Py_ssize_t i = 0; i < PyList_GET_SIZE(problems); i++) {
		const char *path, *headline;
		Py_ssize_t cases, out;
		if (!PyArg_ParseTuple(PyList_GET_ITEM(problems, i), "snns", &path, &cases, &out, &headline)) {
			fclose(mem);
			free(buf);
			return NULL;
		}
		fpref_golden_verify_problem_print(mem, path, (size_t)cases, (size_t)out, headline);
	}
	fpref_golden_verify_folder_print(mem, golden, (size_t)files, (size_t)vectors, (size_t)outside, (size_t)failed,
					 (size_t)bad, manifest_ok, pass);
	fclose(mem);
	PyObject *text = buf ? PyUnicode_FromStringAndSize(buf, (Py_ssize_t)len) : PyErr_NoMemory();
	free(buf);
	return text;
}

/* golden_info(path) -> (op, output format, vectors) of a golden file. */
PyObject *py_golden_info(PyObject *self, PyObject *args)
{
	(void)self;
	const char *path;
	if (!PyArg_ParseTuple(args, "s", &path))
		return NULL;
	char err[2048];
	struct fpref_golden_file g;
	struct fpref_golden_job j;
	if (fpref_golden_read(path, &g, err, sizeof err) != 0) {
		PyErr_Format(PyExc_ValueError, "verify: %s", err);
		return NULL;
	}
	PyObject *r = NULL;
	if (fpref_golden_job_of(&g, &j, err, sizeof err) != 0)
		PyErr_Format(PyExc_ValueError, "verify: %s: %s", path, err);
	else
		r = Py_BuildValue("(ssn)", g.op, j.out.name, (Py_ssize_t)g.nlines);
	fpref_golden_file_free(&g);
	return r;
}
