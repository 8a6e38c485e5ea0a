/*
 * util/tools.c - the tool table and agents' names for its tools.
 */
#include "tools.h"

#include <string.h>

#include <cjson/cJSON.h>

/* clang-format off */
static const lu_tool tools[] = {
#define ROW(n, k, f, d, p, title) {#n, k, f, title},
	LU_TOOLS(ROW)
#undef ROW
};
/* clang-format on */

const lu_tool *lu_tool_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof tools / sizeof *tools; i++)
		if (!strcmp(tools[i].name, name))
			return &tools[i];
	return NULL;
}

const lu_tool *lu_tool_at(size_t i)
{
	return i < sizeof tools / sizeof *tools ? &tools[i] : NULL;
}

void lu_tool_norm(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (; *in && n + 1 < cap; in++) {
		if (*in == '_' || *in == '-')
			continue;
		char c = *in;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		out[n++] = c;
	}
	out[n] = '\0';
}

/* Coding agents' tool names, normalised -> harness tool.  Every harness
   tool is here under its own normalised name too. */
static const struct {
	const char *norm;
	const char *tool;
	/* clang-format off */
} agent_names[] = {
	{"bash", "bash"},           {"shell", "bash"},
    /* clang-format on */
    {"runshellcommand", "bash"},
    {"read", "read"},
    {"readfile", "read"},
    {"write", "write"},
    {"writefile", "write"},
    {"edit", "edit"},
    {"replace", "edit"},
    {"multiedit", "multi_edit"},
    {"applypatch", "apply_patch"},
    {"notebookedit", "notebook_edit"},
    {"notebookread", "read"},
    {"ls", "ls"},
    {"listdirectory", "ls"},
    {"glob", "glob"},
    {"grep", "grep"},
    {"searchfilecontent", "grep"},
    {"grepsearch", "grep"},
    {"bashoutput", "bash_output"},
    {"killshell", "kill_shell"},
    {"killbash", "kill_shell"},
    {"writestdin", "write_stdin"},
    {"todowrite", "todo_write"},
    {"todoread", "todo_read"},
};

const char *lu_tool_from_agent(const char *name)
{
	if (!name || !strncmp(name, "mcp__", 5))
		return NULL;
	char norm[128];
	lu_tool_norm(name, norm, sizeof norm);
	for (size_t i = 0; i < sizeof agent_names / sizeof *agent_names; i++)
		if (!strcmp(norm, agent_names[i].norm))
			return agent_names[i].tool;
	return NULL;
}

bool lu_tool_is_web(const char *name)
{
	static const char *const web[] = {"webfetch", "websearch", "fetch",
	                                  "googlewebsearch", "webfetchtool"};
	if (!name || !strncmp(name, "mcp__", 5))
		return false;
	char norm[128];
	lu_tool_norm(name, norm, sizeof norm);
	for (size_t i = 0; i < sizeof web / sizeof *web; i++)
		if (!strcmp(norm, web[i]))
			return true;
	return false;
}

/* Agents' argument names -> the harness's: file_path/notebook_path ->
 * path, run_in_background -> background, old_string/new_string ->
 * old/new.  Only when the harness name is absent. */
int lu_tool_agent_args(cJSON *args)
{
	/* clang-format off */
	static const char *const ren[][2] = {
		{"file_path", "path"},     {"notebook_path", "path"},
		{"absolute_path", "path"}, {"run_in_background", "background"},
		{"old_string", "old"},     {"new_string", "new"},
		{"new_source", "source"},
	};
	/* clang-format on */
	for (size_t i = 0; i < sizeof(ren) / sizeof(ren[0]); i++) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(args, ren[i][0]);
		if (!v || cJSON_GetObjectItemCaseSensitive(args, ren[i][1]))
			continue;
		cJSON *dup = cJSON_Duplicate(v, true);
		if (!dup)
			return -1;
		if (!cJSON_AddItemToObject(args, ren[i][1], dup)) {
			cJSON_Delete(dup);
			return -1;
		}
	}
	return 0;
}
