/*
 * record.c - encode/decode refusal records (format in record.h).
 */
#include <string.h>

#include "record.h"

size_t sbx_rec_encode(char *buf, size_t sz,
		      const char *const f[SBX_REC_NFIELDS])
{
	size_t len = 0;

	for (int i = 0; i < SBX_REC_NFIELDS; i++) {
		const char *s = f[i] ? f[i] : "";
		size_t n = strlen(s) + 1;

		if (len + n > sz)
			return 0;
		memcpy(buf + len, s, n);
		len += n;
	}
	return len;
}

int sbx_rec_decode(char *buf, size_t len, const char *f[SBX_REC_NFIELDS])
{
	size_t pos = 0;

	buf[len] = '\0';
	for (int i = 0; i < SBX_REC_NFIELDS; i++) {
		if (pos >= len)
			return -1;
		f[i] = buf + pos;
		pos += strlen(buf + pos) + 1;
	}
	return pos == len ? 0 : -1;
}
