/*
 * The default locale as SubstrateVM's LocaleSupport reads it (LocaleCHelper): the display locale (LC_MESSAGES) and
 * the format locale (LC_CTYPE), each as language, script, country and variant; NULL where there is none.
 * Written for Usher's native build.
 */
#ifndef USHER_SVM_LOCALE_H
#define USHER_SVM_LOCALE_H

#define SVM_LOCALE_INITIALIZATION_SUCCEEDED 0
#define SVM_LOCALE_INITIALIZATION_OUT_OF_MEMORY 1

typedef struct {
    char *display_language;
    char *display_script;
    char *display_country;
    char *display_variant;
    char *format_language;
    char *format_script;
    char *format_country;
    char *format_variant;
} svm_locale_props_t;

int svm_initialize_locale(void);
svm_locale_props_t *svm_get_locale(void);

#endif
