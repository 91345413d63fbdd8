/*
 * The default locale for SubstrateVM's LocaleSupport, read the POSIX way from the environment: LC_ALL, then the
 * category's own variable (LC_MESSAGES for display, LC_CTYPE for formats), then LANG; "C" and "POSIX" mean en_US,
 * as on the JDK. A value looks like language[_COUNTRY][.codeset][@modifier]; the modifiers glibc uses for scripts
 * (latin, cyrillic, devanagari) become the script, "euro" is dropped, any other becomes the variant.
 * Written for Usher's native build.
 */
#include <stdlib.h>
#include <string.h>

#include "svm_locale.h"

static svm_locale_props_t props;

static const char *category_value(const char *category_variable) {
    const char *names[] = {"LC_ALL", category_variable, "LANG"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *value = getenv(names[i]);
        if (value != NULL && value[0] != '\0') {
            return value;
        }
    }
    return "C";
}

static const char *script_of_modifier(const char *modifier) {
    static const char *const scripts[][2] = {{"latin", "Latn"}, {"cyrillic", "Cyrl"}, {"devanagari", "Deva"}};
    for (size_t i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
        if (strcmp(modifier, scripts[i][0]) == 0) {
            return scripts[i][1];
        }
    }
    return NULL;
}

/* Splits a locale value into the four parts; 0 when memory ran out. */
static int parse(const char *value, char **language, char **script, char **country, char **variant) {
    char *copy = strdup(value);
    if (copy == NULL) {
        return 0;
    }
    char *modifier = strchr(copy, '@');
    if (modifier != NULL) {
        *modifier++ = '\0';
    }
    char *codeset = strchr(copy, '.');
    if (codeset != NULL) {
        *codeset = '\0';
    }
    char *region = strchr(copy, '_');
    if (region != NULL) {
        *region++ = '\0';
    }
    if (strcmp(copy, "C") == 0 || strcmp(copy, "POSIX") == 0 || copy[0] == '\0') {
        *language = strdup("en");
        *country = strdup("US");
    } else {
        *language = strdup(copy);
        *country = region != NULL && region[0] != '\0' ? strdup(region) : NULL;
    }
    *script = NULL;
    *variant = NULL;
    if (modifier != NULL && modifier[0] != '\0' && strcmp(modifier, "euro") != 0) {
        const char *s = script_of_modifier(modifier);
        if (s != NULL) {
            *script = strdup(s);
        } else {
            *variant = strdup(modifier);
        }
    }
    int ok = *language != NULL && (region == NULL || *country != NULL || region[0] == '\0');
    free(copy);
    return ok;
}

int svm_initialize_locale(void) {
    int ok = parse(category_value("LC_MESSAGES"), &props.display_language, &props.display_script,
                   &props.display_country, &props.display_variant) &&
             parse(category_value("LC_CTYPE"), &props.format_language, &props.format_script, &props.format_country,
                   &props.format_variant);
    return ok ? SVM_LOCALE_INITIALIZATION_SUCCEEDED : SVM_LOCALE_INITIALIZATION_OUT_OF_MEMORY;
}

svm_locale_props_t *svm_get_locale(void) { return &props; }
