/*
 * parser/inline_safe.c - inline code proven harmless: a closed vocabulary.
 *
 * Closed world: code given inline to an interpreter (python -c, node -e, a
 * heredoc fed to python) is auto-approved only when every name it uses is
 * known to be harmless: it computes and prints, reading nothing but its
 * stdin, its arguments and the modules it imports.  The rule is a
 * vocabulary, not a list of dangers:
 *
 *   - every identifier outside string literals is a keyword, a builtin, a
 *     module or an attribute of the language's list below, or a name the
 *     code binds itself (`x = ...`, `for k, v in`, `as e`, `end=`);
 *   - `import M` of a module in no list runs that module (the class "runs
 *     workspace or installed code", as `python -m M`), but never
 *     `import M.__main__`, which runs M's command line on the line's
 *     arguments (`-c 'import IPython.__main__' -c CODE`): M may then only be
 *     read as `M.__version__`, `M.__name__` or `M.__file__`; `from M import
 *     a` needs M listed; node's `require("M")` is followed by a listed
 *     attribute (`require("./package.json").version`);
 *   - what reaches the environment, files, processes or other code is in
 *     no list (os, environ, open, eval, exec, getattr, __import__, vars,
 *     globals, __dict__, pickle, process.env, readFileSync, constructor,
 *     str.format's attribute lookups...), and `process` is only read
 *     through a listed attribute (`console.log(process)` prints env);
 *   - string literals are data, except the code holes of f-strings and
 *     template literals, which are checked as code;
 *   - JavaScript's computed member access (`process["env"]`), any byte
 *     outside ASCII outside a literal (Python folds identifiers by NFKC)
 *     and code past the token bound are never proven.
 *
 * Python and JavaScript have a vocabulary; inline code of every other
 * language is never proven (awk is judged by its own rules in labels/).
 * Code that is not proven is not refused: the labeller holds it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "seethrough.h"

/* clang-format off */
static const char py_names[] =
    "|import|from|as|for|in|if|elif|else|not|and|or|is|None|True|False|"
    "return|while|break|continue|pass|try|except|finally|with|del|assert|"
    /* builtins that compute or print */
    "print|len|str|int|float|bool|bytes|sum|min|max|sorted|reversed|range|"
    "enumerate|zip|dict|list|set|frozenset|tuple|abs|round|repr|hex|oct|"
    "bin|ord|chr|any|all|map|filter|isinstance|divmod|pow|iter|next|input|"
    "Exception|ValueError|KeyError|TypeError|IndexError|ImportError|"
    "ModuleNotFoundError|StopIteration|"
    /* attributes of what the listed names give */
    "__version__|__name__|version|version_info|hexversion|python_version|"
    "stdin|stdout|stderr|argv|maxsize|byteorder|exit|read|readline|"
    "readlines|write|flush|load|loads|dump|dumps|get|keys|values|items|"
    "split|rsplit|strip|lstrip|rstrip|join|lower|upper|title|replace|"
    "startswith|endswith|find|count|index|append|extend|pop|insert|sort|"
    "copy|update|encode|decode|splitlines|isdigit|isalpha|pi|sqrt|floor|"
    "ceil|log|now|today|isoformat|strftime|date|sub|match|search|findall|"
    "fullmatch|group|groups|dedent|indent|fill|wrap|sha256|md5|hexdigest|"
    "b64encode|b64decode|uuid4|pformat|pprint|quote|Counter|defaultdict|"
    "OrderedDict|most_common|reduce|chain|";

/* modules that only compute (their listed attributes are harmless) */
static const char py_modules[] =
    "|sys|json|math|re|platform|datetime|time|collections|itertools|"
    "functools|textwrap|decimal|statistics|hashlib|base64|uuid|pprint|"
    "shlex|";

static const char js_names[] =
    "|const|let|var|return|if|else|for|of|in|while|break|continue|new|"
    "typeof|instanceof|true|false|null|undefined|try|catch|finally|throw|"
    "console|log|error|info|warn|JSON|parse|stringify|Math|max|min|floor|"
    "ceil|round|abs|random|sqrt|pow|Number|String|Boolean|Array|Object|"
    "keys|values|entries|length|map|filter|reduce|forEach|join|split|trim|"
    "toString|toFixed|toUpperCase|toLowerCase|includes|indexOf|slice|push|"
    "sort|Date|now|toISOString|getTime|parseInt|parseFloat|isNaN|"
    "version|versions|platform|arch|argv|stdout|write|exit|name|"
    "dependencies|devDependencies|scripts|";
/* clang-format on */

/* what a module name given to import may be read as */
static const char module_dunders[] = "|__version__|__name__|__file__|";

enum tok_kind { T_IDENT, T_STR, T_PUNCT, T_END };

typedef struct tok {
	enum tok_kind kind;
	const char *s;
	size_t n;
} tok;

#define MAX_TOKS 4096
#define MAX_BOUND 64

typedef struct vocab {
	bool js;
	const char *names;
	tok *t;
	size_t nt;
	const char *local[MAX_BOUND]; /* names the code binds */
	size_t nlocal[MAX_BOUND], nlocals;
	const char *other[MAX_BOUND]; /* modules in no list */
	size_t nother[MAX_BOUND], nothers;
} vocab;

static bool listed(const char *list, const char *s, size_t n)
{
	for (const char *p = strchr(list, '|'); p && p[1];
	     p = strchr(p + 1, '|'))
		if (!strncmp(p + 1, s, n) && p[1 + n] == '|')
			return true;
	return false;
}

static bool in_set(const char *const *v, const size_t *len, size_t k,
                   const char *s, size_t n)
{
	for (size_t i = 0; i < k; i++)
		if (len[i] == n && !strncmp(v[i], s, n))
			return true;
	return false;
}

static bool add_local(vocab *v, const tok *t)
{
	if (in_set(v->local, v->nlocal, v->nlocals, t->s, t->n))
		return true;
	if (v->nlocals == MAX_BOUND)
		return false;
	v->local[v->nlocals] = t->s;
	v->nlocal[v->nlocals++] = t->n;
	return true;
}

static bool add_other(vocab *v, const tok *t)
{
	if (v->nothers == MAX_BOUND)
		return false;
	v->other[v->nothers] = t->s;
	v->nother[v->nothers++] = t->n;
	return true;
}

static bool ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == '$';
}

static bool ident_char(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

static bool is(const tok *t, const char *s)
{
	return t->kind != T_END && t->n == strlen(s) && !strncmp(t->s, s, t->n);
}

static bool proven_text(vocab *v, const char *p, const char *end);

/* The code holes of an f-string or template literal body [p, end). */
static bool holes(vocab *v, const char *p, const char *end)
{
	while (p < end) {
		if (!v->js && p[0] == '{' && p + 1 < end && p[1] == '{') {
			p += 2;
			continue;
		}
		bool hole = v->js ? (p[0] == '$' && p + 1 < end && p[1] == '{')
		                  : p[0] == '{';
		if (!hole) {
			p += (*p == '\\' && p + 1 < end) ? 2 : 1;
			continue;
		}
		p += v->js ? 2 : 1;
		const char *q = p;
		while (q < end && *q != '}') {
			if (strchr("\"'`{\\", *q))
				return false; /* nested literals: not read */
			q++;
		}
		if (q == end)
			return false;
		/* `{x!r}`, `{x:>10}`: the expression ends at ! or : */
		const char *e = p;
		while (e < q && (v->js || (*e != '!' && *e != ':')))
			e++;
		if (!proven_text(v, p, e))
			return false;
		p = q + 1;
	}
	return true;
}

/* The literal opening at p (prefix letters in [pre, p)): its end, or
   NULL when it does not close or its holes are not proven. */
static const char *literal(vocab *v, const char *pre, const char *p,
                           const char *end)
{
	char q = *p;
	bool triple = !v->js && p + 2 < end && p[1] == q && p[2] == q;
	bool code = v->js ? q == '`'
	                  : (memchr(pre, 'f', (size_t)(p - pre)) ||
	                     memchr(pre, 'F', (size_t)(p - pre)));
	const char *s = p + (triple ? 3 : 1);
	const char *e = s;
	for (; e < end; e++) {
		if (*e == '\\' && e + 1 < end) {
			e++;
			continue;
		}
		if (*e == q &&
		    (!triple || (e + 2 < end && e[1] == q && e[2] == q)))
			break;
	}
	if (e >= end || (code && !holes(v, s, e)))
		return NULL;
	return e + (triple ? 3 : 1);
}

/* Split [p, end) into tokens; false when a byte or a literal is not
   readable, or past MAX_TOKS. */
static bool tokenize(vocab *v, const char *p, const char *end)
{
	while (p < end) {
		char c = *p;
		if ((unsigned char)c >= 0x80)
			return false;
		if (c == ' ' || c == '\t' || c == '\r' ||
		    (c == '\\' && p + 1 < end && p[1] == '\n')) {
			p += c == '\\' ? 2 : 1;
			continue;
		}
		if ((c == '#' && !v->js) ||
		    (v->js && c == '/' && p + 1 < end && p[1] == '/')) {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (v->nt + 1 >= MAX_TOKS)
			return false;
		tok *t = &v->t[v->nt];
		t->s = p;
		if (c == '"' || c == '\'' || (v->js && c == '`')) {
			const char *e = literal(v, p, p, end);
			if (!e)
				return false;
			t->kind = T_STR;
			t->n = (size_t)(e - p);
			p = e;
		} else if (ident_start(c)) {
			const char *w = p;
			while (p < end && ident_char(*p))
				p++;
			size_t n = (size_t)(p - w);
			if (!v->js && p < end && (*p == '"' || *p == '\'') &&
			    n <= 3 && strspn(w, "rRbBuUfF") >= n) {
				const char *e = literal(v, w, p, end);
				if (!e)
					return false;
				t->kind = T_STR;
				p = e;
				n = (size_t)(e - w);
			} else
				t->kind = T_IDENT;
			t->n = n;
		} else {
			t->kind = T_PUNCT;
			/* `==`, `=>`, `!=`: one token, so `x == y` binds
			   nothing */
			t->n = (p + 1 < end && strchr("=!<>", c) &&
			        strchr("=>", p[1]))
			           ? 2
			           : 1;
			p += t->n;
		}
		v->nt++;
	}
	v->t[v->nt].kind = T_END;
	v->t[v->nt].s = end;
	v->t[v->nt].n = 0;
	return true;
}

static bool stmt_end(const tok *t)
{
	return t->kind == T_END || is(t, "\n") || is(t, ";");
}

/* `import a.b as c, d` / `from m import a as b, c`: bind the names;
   returns the index after the statement, 0 when not proven. */
static size_t import_stmt(vocab *v, size_t i)
{
	tok *t = v->t;
	if (is(&t[i], "from")) {
		if (t[i + 1].kind != T_IDENT || !is(&t[i + 2], "import") ||
		    !listed(py_modules, t[i + 1].s, t[i + 1].n))
			return 0;
		for (i += 3; !stmt_end(&t[i]); i++) {
			if (t[i].kind != T_IDENT)
				continue;
			if (is(&t[i], "as")) {
				if (t[i + 1].kind != T_IDENT ||
				    !add_local(v, &t[i + 1]))
					return 0;
				i++;
			} else if (!listed(py_names, t[i].s, t[i].n))
				return 0;
		}
		return i;
	}
	for (i++; !stmt_end(&t[i]); i++) {
		if (t[i].kind != T_IDENT)
			return 0;
		size_t first = i;
		while (is(&t[i + 1], ".") && t[i + 2].kind == T_IDENT)
			i += 2;
		/* `import PKG.__main__` runs PKG's command line on the
		   line's extra words (sys.argv): IPython -c CODE, flask run
		   (checked by a red team) */
		for (size_t k = first; k <= i; k += 2)
			if (is(&t[k], "__main__"))
				return 0;
		const tok *name = &t[first];
		bool safe = i == first && listed(py_modules, name->s, name->n);
		if (is(&t[i + 1], "as")) {
			if (t[i + 2].kind != T_IDENT)
				return 0;
			name = &t[i + 2];
			safe = false;
			i += 2;
		}
		if (!safe && !add_other(v, name))
			return 0;
		if (safe && !add_local(v, name))
			return 0;
		if (is(&t[i + 1], ","))
			i++;
	}
	return i;
}

/* First pass: the names the code binds. */
static bool bind_pass(vocab *v)
{
	tok *t = v->t;
	for (size_t i = 0; i < v->nt; i++) {
		if (t[i].kind != T_IDENT)
			continue;
		bool dotted = i > 0 && is(&t[i - 1], ".");
		if (!v->js && !dotted &&
		    (is(&t[i], "import") || is(&t[i], "from"))) {
			size_t e = import_stmt(v, i);
			if (!e)
				return false;
			i = e;
			continue;
		}
		if (dotted)
			continue;
		bool binds =
		    is(&t[i + 1], "=") || is(&t[i + 1], "=>") ||
		    (i > 0 && (is(&t[i - 1], "as") || is(&t[i - 1], "const") ||
		               is(&t[i - 1], "let") || is(&t[i - 1], "var")));
		if (is(&t[i], "for")) {
			/* for a, (b, c) in / for (const x of */
			for (size_t k = i + 1;
			     !stmt_end(&t[k]) && !is(&t[k], "in") &&
			     !is(&t[k], "of");
			     k++)
				if (t[k].kind == T_IDENT &&
				    !listed(v->names, t[k].s, t[k].n) &&
				    !add_local(v, &t[k]))
					return false;
		}
		if (binds && !add_local(v, &t[i]))
			return false;
	}
	return true;
}

/* Second pass: every identifier is known. */
static bool check_pass(vocab *v)
{
	tok *t = v->t;
	for (size_t i = 0; i < v->nt; i++) {
		if (!v->js && !(i > 0 && is(&t[i - 1], ".")) &&
		    (is(&t[i], "import") || is(&t[i], "from"))) {
			while (!stmt_end(&t[i]))
				i++; /* judged by the first pass */
			continue;
		}
		if (v->js && is(&t[i], "[") && i > 0 &&
		    (t[i - 1].kind == T_IDENT || t[i - 1].kind == T_STR ||
		     is(&t[i - 1], ")") || is(&t[i - 1], "]")))
			return false; /* computed member access */
		if (t[i].kind != T_IDENT)
			continue;
		bool dotted = i > 0 && is(&t[i - 1], ".");
		if (dotted) {
			/* datetime.datetime, time.time: a listed module is
			   also an attribute */
			if (!listed(v->names, t[i].s, t[i].n) &&
			    (v->js || !listed(py_modules, t[i].s, t[i].n)))
				return false;
			continue;
		}
		if (in_set(v->other, v->nother, v->nothers, t[i].s, t[i].n)) {
			/* a module in no list: only its version or name */
			if (!is(&t[i + 1], ".") || t[i + 2].kind != T_IDENT ||
			    !listed(module_dunders, t[i + 2].s, t[i + 2].n))
				return false;
			i += 2;
			continue;
		}
		if (v->js && is(&t[i], "require")) {
			/* require("M").ATTR: M runs (installed or workspace
			   code); the module object itself is not printed */
			if (!is(&t[i + 1], "(") || t[i + 2].kind != T_STR ||
			    t[i + 2].s[0] == '`' || !is(&t[i + 3], ")") ||
			    !is(&t[i + 4], "."))
				return false;
			i += 3;
			continue;
		}
		if (v->js && is(&t[i], "process")) {
			/* process.version; console.log(process) prints env */
			if (!is(&t[i + 1], "."))
				return false;
			continue;
		}
		if (listed(v->names, t[i].s, t[i].n) ||
		    (!v->js && listed(py_modules, t[i].s, t[i].n)) ||
		    in_set(v->local, v->nlocal, v->nlocals, t[i].s, t[i].n))
			continue;
		return false;
	}
	return true;
}

static bool proven_text(vocab *v, const char *p, const char *end)
{
	vocab sub = *v;
	sub.t = malloc(MAX_TOKS * sizeof *sub.t);
	if (!sub.t)
		return false;
	sub.nt = 0;
	bool ok = tokenize(&sub, p, end) && check_pass(&sub);
	free(sub.t);
	return ok;
}

bool lp_inline_proven(const char *code, unsigned lang)
{
	if (!code || !(lang & (LK_LANG_PY | LK_LANG_JS)))
		return false;
	vocab *v = calloc(1, sizeof *v);
	if (!v)
		return false;
	v->js = (lang & LK_LANG_PY) == 0;
	v->names = v->js ? js_names : py_names;
	v->t = malloc(MAX_TOKS * sizeof *v->t);
	const char *end = code + strlen(code);
	bool ok =
	    v->t && tokenize(v, code, end) && bind_pass(v) && check_pass(v);
	free(v->t);
	free(v);
	return ok;
}
